//! The byte format as its documentation (the module doc of `bytes.rs`)
//! describes it, read and written independently of the crate's decoder:
//! [`layout`] finds where every field of an encoding starts, so that a test
//! can corrupt exactly one, and [`Wire`] writes crafted inputs.

/// Where a string is: its `u32` length, then its bytes.
#[derive(Clone, Debug)]
pub struct Str {
    /// The offset of the length.
    pub len_at: usize,
    /// The offset of the first byte.
    pub at: usize,
    /// The text.
    pub text: String,
}

/// Where a parameter type is.
#[derive(Clone, Debug)]
pub struct TypeAt {
    /// The offset of the type byte.
    pub at: usize,
    /// The type byte.
    pub tag: u8,
    /// For an enumeration, the offset of its variant count.
    pub variants_count_at: Option<usize>,
    /// For an enumeration, its variants.
    pub variants: Vec<Str>,
    /// For an input or an output, the offset of its field type byte.
    pub field_type_at: Option<usize>,
}

/// Where an import's parameter is.
#[derive(Clone, Debug)]
pub struct ParamAt {
    /// Its name.
    pub name: Str,
    /// Its type.
    pub ty: TypeAt,
}

/// Where an import is.
#[derive(Clone, Debug)]
pub struct ImportAt {
    /// Its name.
    pub name: Str,
    /// The offset of its persistent byte.
    pub persistent_at: usize,
    /// The offset of its parameter count.
    pub params_count_at: usize,
    /// Its parameters.
    pub params: Vec<ParamAt>,
}

/// Where a node entry is.
#[derive(Clone, Debug)]
pub struct NodeAt {
    /// The offset of its id.
    pub id_at: usize,
    /// Its name.
    pub name: Str,
    /// The offset of its "has source" byte.
    pub source_flag_at: usize,
    /// The offset of its source's `u16` file (then `u32` line at +2 and
    /// `u32` column at +6), when it has one.
    pub file_at: Option<usize>,
}

/// Where a blackboard field entry is.
#[derive(Clone, Debug)]
pub struct FieldAt {
    /// Its name.
    pub name: Str,
    /// The offset of its field type byte.
    pub ty_at: usize,
}

/// Where a variable entry is.
#[derive(Clone, Debug)]
pub struct VariableAt {
    /// The offset of the entry (its name's length).
    pub at: usize,
    /// Its name.
    pub name: Str,
    /// The offset of its initial value byte.
    pub initial_at: usize,
}

/// Where an entry of the entry table is.
#[derive(Clone, Debug)]
pub struct EntryAt {
    /// The offset of the entry (its name's length).
    pub at: usize,
    /// Its name.
    pub name: Str,
    /// The offset of its type byte.
    pub ty_at: usize,
}

/// Where a signal entry is.
#[derive(Clone, Debug)]
pub struct SignalAt {
    /// The offset of the entry, which is its `u32` event.
    pub at: usize,
    /// The offset of its `u32` variable.
    pub variable_at: usize,
    /// The offset of its value byte.
    pub value_at: usize,
}

/// Where a timestamp entry is.
#[derive(Clone, Debug)]
pub struct TimestampAt {
    /// The offset of the entry (its name's length).
    pub at: usize,
    /// Its name.
    pub name: Str,
    /// The offset of its `u32` event.
    pub event_at: usize,
    /// The offset of its `u32` exclusive timestamp (`u32::MAX`: none).
    pub exclusive_at: usize,
}

/// Where a stimulus entry is.
#[derive(Clone, Debug)]
pub struct StimulusAt {
    /// The offset of the entry (its name's length).
    pub at: usize,
    /// Its name.
    pub name: Str,
    /// The offset of its `u32` seconds (`f32` bits).
    pub seconds_at: usize,
}

/// Where a script entry is.
#[derive(Clone, Debug)]
pub struct ScriptAt {
    /// The offset of the entry (its source's length).
    pub at: usize,
    /// Its source.
    pub source: Str,
    /// The offset of its word count (the words follow it).
    pub words_count_at: usize,
    /// Its code words.
    pub words: Vec<u64>,
}

/// Where a log table entry's parts are.
#[derive(Clone, Debug)]
pub struct LogAt {
    /// The offset of the entry (its node).
    pub at: usize,
    /// The offset of its event mask.
    pub events_at: usize,
    /// Its messages, in bit order.
    pub messages: Vec<Str>,
}

impl ScriptAt {
    /// The offset of code word `i`.
    pub fn word_at(&self, i: usize) -> usize {
        self.words_count_at + 4 + 8 * i
    }
}

/// Where every part of an encoding is.
#[derive(Clone, Debug)]
pub struct Layout {
    /// Offset of the item count (the items follow it).
    pub items_count_at: usize,
    /// Item words.
    pub items: Vec<u64>,
    /// Offset of the parameter count (the words follow it).
    pub params_count_at: usize,
    /// Parameter words.
    pub params: Vec<u64>,
    /// Offsets of the import counts: Condition, Action, Deferred.
    pub imports_count_at: [usize; 4],
    /// The import tables.
    pub imports: [Vec<ImportAt>; 4],
    /// Offset of the node table (it has no count: one entry per item).
    pub nodes_at: usize,
    /// The node entries.
    pub nodes: Vec<NodeAt>,
    /// Offset of the string count.
    pub strings_count_at: usize,
    /// The string table.
    pub strings: Vec<Str>,
    /// Offset of the file count.
    pub files_count_at: usize,
    /// The file table.
    pub files: Vec<Str>,
    /// Offset of the field count.
    pub fields_count_at: usize,
    /// The field table.
    pub fields: Vec<FieldAt>,
    /// Offset of the event count.
    pub events_count_at: usize,
    /// The event table.
    pub events: Vec<Str>,
    /// Offset of the variable count.
    pub variables_count_at: usize,
    /// The variable table.
    pub variables: Vec<VariableAt>,
    /// Offset of the entry count.
    pub entries_count_at: usize,
    /// The entry table.
    pub entries: Vec<EntryAt>,
    /// Offset of the signal count.
    pub signals_count_at: usize,
    /// The signal table.
    pub signals: Vec<SignalAt>,
    /// Offset of the timestamp count.
    pub timestamps_count_at: usize,
    /// The timestamp table.
    pub timestamps: Vec<TimestampAt>,
    /// Offset of the stimulus count.
    pub stimuli_count_at: usize,
    /// The stimulus table.
    pub stimuli: Vec<StimulusAt>,
    /// Offset of the script count.
    pub scripts_count_at: usize,
    /// The script table.
    pub scripts: Vec<ScriptAt>,
    /// Offset of the log table's count.
    pub logs_count_at: usize,
    /// The log table.
    pub logs: Vec<LogAt>,
    /// One past the last byte read.
    pub end: usize,
}

impl Layout {
    /// The offset of item `i`.
    pub fn item_at(&self, i: usize) -> usize {
        self.items_count_at + 4 + 8 * i
    }

    /// The offset of parameter word `i`.
    pub fn param_at(&self, i: usize) -> usize {
        self.params_count_at + 4 + 8 * i
    }
}

/// Reads `bytes` as the documented layout, panicking where it does not
/// follow it (tests read only encodings they made).
pub fn layout(bytes: &[u8]) -> Layout {
    assert_eq!(&bytes[..8], b"TBSHAPE\0", "magic");
    assert_eq!(get_u32(bytes, 8), 7, "version");
    assert_eq!(get_u32(bytes, 12), 0, "reserved");
    let mut r = Walk { bytes, pos: 16 };
    let items_count_at = r.pos;
    let n = r.u32();
    let items: Vec<u64> = (0..n).map(|_| r.u64()).collect();
    let params_count_at = r.pos;
    let n = r.u32();
    let params = (0..n).map(|_| r.u64()).collect();
    let mut imports_count_at = [0; 4];
    let mut imports: [Vec<ImportAt>; 4] = Default::default();
    for (count_at, table) in imports_count_at.iter_mut().zip(&mut imports) {
        *count_at = r.pos;
        for _ in 0..r.u32() {
            let name = r.string();
            let persistent_at = r.pos;
            let flags = r.u8();
            assert!(flags <= 1 || flags == 4 || flags == 5, "import flags");
            // A memory block's words follow its flag.
            if flags & 4 != 0 {
                r.u8();
            }
            let params_count_at = r.pos;
            let params = (0..r.u32())
                .map(|_| {
                    let param = ParamAt {
                        name: r.string(),
                        ty: r.param_type(),
                    };
                    // Its default: a tag (0 none, 1 a word, 2 an input's
                    // literal), then the word unless none.
                    let tag = r.u8();
                    assert!(tag <= 2, "default tag");
                    if tag != 0 {
                        r.u64();
                    }
                    param
                })
                .collect();
            table.push(ImportAt {
                name,
                persistent_at,
                params_count_at,
                params,
            });
        }
    }
    let nodes_at = r.pos;
    let nodes = (0..items.len())
        .map(|_| {
            let id_at = r.pos;
            r.u32();
            let name = r.string();
            let source_flag_at = r.pos;
            let file_at = match r.u8() {
                0 => None,
                1 => {
                    let at = r.pos;
                    r.pos += 2 + 4 + 4;
                    Some(at)
                }
                b => panic!("source byte {b}"),
            };
            NodeAt {
                id_at,
                name,
                source_flag_at,
                file_at,
            }
        })
        .collect();
    let strings_count_at = r.pos;
    let strings = (0..r.u32()).map(|_| r.string()).collect();
    let files_count_at = r.pos;
    let files = (0..r.u32()).map(|_| r.string()).collect();
    let fields_count_at = r.pos;
    let fields = (0..r.u32())
        .map(|_| FieldAt {
            name: r.string(),
            ty_at: {
                r.pos += 1;
                r.pos - 1
            },
        })
        .collect();
    let events_count_at = r.pos;
    let events = (0..r.u32()).map(|_| r.string()).collect();
    let variables_count_at = r.pos;
    let variables = (0..r.u32())
        .map(|_| VariableAt {
            at: r.pos,
            name: r.string(),
            initial_at: {
                assert!(r.u8() <= 1, "initial value byte");
                r.pos - 1
            },
        })
        .collect();
    let entries_count_at = r.pos;
    let entries = (0..r.u32())
        .map(|_| EntryAt {
            at: r.pos,
            name: r.string(),
            ty_at: {
                assert!(r.u8() <= 3, "entry type byte");
                r.pos - 1
            },
        })
        .collect();
    let signals_count_at = r.pos;
    let signals = (0..r.u32())
        .map(|_| {
            let at = r.pos;
            r.pos += 8;
            assert!(r.u8() <= 1, "signal value byte");
            SignalAt {
                at,
                variable_at: at + 4,
                value_at: at + 8,
            }
        })
        .collect();
    let timestamps_count_at = r.pos;
    let timestamps = (0..r.u32())
        .map(|_| {
            let at = r.pos;
            let name = r.string();
            let event_at = r.pos;
            r.pos += 8;
            TimestampAt {
                at,
                name,
                event_at,
                exclusive_at: event_at + 4,
            }
        })
        .collect();
    let stimuli_count_at = r.pos;
    let stimuli = (0..r.u32())
        .map(|_| {
            let at = r.pos;
            let name = r.string();
            let seconds_at = r.pos;
            r.pos += 4;
            StimulusAt {
                at,
                name,
                seconds_at,
            }
        })
        .collect();
    let scripts_count_at = r.pos;
    let scripts = (0..r.u32())
        .map(|_| {
            let at = r.pos;
            let source = r.string();
            let words_count_at = r.pos;
            let words = (0..r.u32()).map(|_| r.u64()).collect();
            ScriptAt {
                at,
                source,
                words_count_at,
                words,
            }
        })
        .collect();
    let logs_count_at = r.pos;
    let logs = (0..r.u32())
        .map(|_| {
            let at = r.pos;
            r.u32();
            let events_at = r.pos;
            let events = r.u8();
            assert!(events <= 7, "log event mask");
            let messages = (0..events.count_ones()).map(|_| r.string()).collect();
            LogAt {
                at,
                events_at,
                messages,
            }
        })
        .collect();
    assert!(r.pos <= bytes.len(), "the layout runs past the input");
    Layout {
        items_count_at,
        items,
        params_count_at,
        params,
        imports_count_at,
        imports,
        nodes_at,
        nodes,
        strings_count_at,
        strings,
        files_count_at,
        files,
        fields_count_at,
        fields,
        events_count_at,
        events,
        variables_count_at,
        variables,
        entries_count_at,
        entries,
        signals_count_at,
        signals,
        timestamps_count_at,
        timestamps,
        stimuli_count_at,
        stimuli,
        scripts_count_at,
        scripts,
        logs_count_at,
        logs,
        end: r.pos,
    }
}

struct Walk<'b> {
    bytes: &'b [u8],
    pos: usize,
}

impl Walk<'_> {
    fn u8(&mut self) -> u8 {
        self.pos += 1;
        self.bytes[self.pos - 1]
    }

    fn u32(&mut self) -> u32 {
        self.pos += 4;
        get_u32(self.bytes, self.pos - 4)
    }

    fn u64(&mut self) -> u64 {
        self.pos += 8;
        u64::from_le_bytes(self.bytes[self.pos - 8..self.pos].try_into().unwrap())
    }

    fn string(&mut self) -> Str {
        let len_at = self.pos;
        let len = self.u32() as usize;
        let at = self.pos;
        self.pos += len;
        let text = String::from_utf8_lossy(&self.bytes[at..at + len]).into_owned();
        Str { len_at, at, text }
    }

    fn param_type(&mut self) -> TypeAt {
        let at = self.pos;
        let tag = self.u8();
        let mut ty = TypeAt {
            at,
            tag,
            variants_count_at: None,
            variants: Vec::new(),
            field_type_at: None,
        };
        match tag {
            0..=4 => {}
            5 => {
                ty.variants_count_at = Some(self.pos);
                ty.variants = (0..self.u32()).map(|_| self.string()).collect();
            }
            6 | 7 => {
                ty.field_type_at = Some(self.pos);
                self.u8();
            }
            t => panic!("parameter type {t}"),
        }
        ty
    }
}

/// The little-endian `u32` at `at`.
pub fn get_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
}

/// Overwrites the `u32` at `at`.
pub fn put_u32(bytes: &mut [u8], at: usize, v: u32) {
    bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// Writes crafted inputs field by field.
#[derive(Clone, Debug, Default)]
pub struct Wire {
    /// The bytes so far.
    pub bytes: Vec<u8>,
}

impl Wire {
    /// The magic, version 6 and the reserved word: the 16-byte header.
    pub fn header() -> Wire {
        Wire::version(7)
    }

    /// The magic, `version` and the reserved word.
    pub fn version(version: u32) -> Wire {
        Wire::default().raw(b"TBSHAPE\0").u32(version).u32(0)
    }

    /// A header, no items, no parameters, and one condition import with an
    /// empty name, not persistent: up to that import's parameter count.
    pub fn up_to_import_params() -> Wire {
        Wire::header().u32(0).u32(0).u32(1).string("").u8(0)
    }

    /// A header, no items (so no node entries), no parameters and no
    /// imports (four empty tables): up to the string table's count.
    pub fn up_to_strings() -> Wire {
        Wire::header().u32(0).u32(0).u32(0).u32(0).u32(0).u32(0)
    }

    /// [`Wire::up_to_strings`] and empty string, file and field tables:
    /// up to the event table's count.
    pub fn up_to_events() -> Wire {
        Wire::up_to_strings().u32(0).u32(0).u32(0)
    }

    /// [`Wire::up_to_events`] and empty event, variable, entry, signal and
    /// timestamp tables: up to the stimulus table's count.
    pub fn up_to_stimuli() -> Wire {
        Wire::up_to_events().u32(0).u32(0).u32(0).u32(0).u32(0)
    }

    /// [`Wire::up_to_stimuli`] and an empty stimulus table: up to the
    /// script table's count.
    pub fn up_to_scripts() -> Wire {
        Wire::up_to_stimuli().u32(0)
    }

    /// [`Wire::up_to_scripts`] and an empty script table: up to the log
    /// table's count.
    pub fn up_to_logs() -> Wire {
        Wire::up_to_scripts().u32(0)
    }

    /// Raw bytes.
    pub fn raw(mut self, bytes: &[u8]) -> Wire {
        self.bytes.extend_from_slice(bytes);
        self
    }

    /// `n` zero bytes.
    pub fn zeros(mut self, n: usize) -> Wire {
        self.bytes.resize(self.bytes.len() + n, 0);
        self
    }

    /// A byte.
    pub fn u8(self, v: u8) -> Wire {
        self.raw(&[v])
    }

    /// A `u32` (a count, an id, a line).
    pub fn u32(self, v: u32) -> Wire {
        self.raw(&v.to_le_bytes())
    }

    /// A `u64` (an item, a parameter word).
    pub fn u64(self, v: u64) -> Wire {
        self.raw(&v.to_le_bytes())
    }

    /// A string: its length and its bytes.
    pub fn string(self, s: &str) -> Wire {
        self.u32(s.len() as u32).raw(s.as_bytes())
    }

    /// The bytes written.
    pub fn done(self) -> Vec<u8> {
        self.bytes
    }

    /// The offset the next byte will have.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }
}
