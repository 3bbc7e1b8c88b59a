//! Leaf references: each name resolved to its kind's import table, its
//! parameters matched to the leaf's schema by position or by name,
//! completed with defaults and encoded into the shape's parameter table.

use super::*;

/// A leaf's parameter words, and its input literals as (word, value): see
/// [`Compiler::params`].
pub(super) type LeafWords = (Vec<u64>, Vec<(usize, u64)>);

/// `value` encoded as a parameter of type `ty` of the shape `parts` is
/// becoming: its fields and entries looked up, its strings added.
/// `refused` says why entries may not be named here, if they may not.
pub(super) fn encode_in(
    parts: &mut ShapeParts,
    ty: &ParamType,
    value: &ParamValue,
    refused: Option<&'static str>,
) -> Result<Encoded, Mismatch> {
    let entries = EntryRefs {
        entries: &parts.entries,
        refused,
    };
    encode(ty, value, &parts.fields, entries, &mut parts.strings)
}

impl<'t> Compiler<'t, '_> {
    /// The index of `name` in its kind's import table, added on first use.
    pub(super) fn import(
        &mut self,
        node: &Node,
        position: usize,
        name: &str,
        schema: &LeafSchema,
    ) -> Result<u16, Fatal> {
        let slot = schema.kind.leaf_slot();
        let Some(index) = slot.and_then(|slot| self.import_index.get(slot)) else {
            unreachable!("checked to be a leaf kind");
        };
        if let Some(&i) = index.get(name) {
            return Ok(i);
        }
        // Each default as a node leaving it out gets it (a default that
        // does not encode, which `params` reported, is none).
        let params = (schema.params.iter())
            .map(|p| ImportParam {
                name: p.name.clone(),
                ty: p.ty.clone(),
                default: (p.default.as_ref())
                    .and_then(|value| encode_in(&mut self.parts, &p.ty, value, None).ok()),
            })
            .collect();
        let (Some(index), Some(table)) = (
            slot.and_then(|slot| self.import_index.get_mut(slot)),
            slot.and_then(|slot| self.parts.imports.get_mut(slot)),
        ) else {
            unreachable!("checked to be a leaf kind");
        };
        let Ok(i) = u16::try_from(table.len()) else {
            let what = Unbuildable::TooManyImports { kind: schema.kind };
            return Err(self.fatal(node, position, what));
        };
        table.push(Import {
            name: name.into(),
            params,
            persistent: schema.persistent,
            memory: schema.memory,
            scope: schema.scope,
        });
        index.insert(name.into(), i);
        Ok(i)
    }

    /// Appends a node's parameter words and its input literals (which
    /// follow them; their words are pointed at them) to the table.
    pub(super) fn append_params(
        &mut self,
        node: &Node,
        position: usize,
        words: &[u64],
        constants: &[(usize, u64)],
    ) -> Result<ParamRange, Fatal> {
        let offset = self.parts.params.len();
        let max_params = self.limits.max_params.min(MAX_PARAM_WORDS);
        if offset + words.len() + constants.len() > max_params {
            let what = Unbuildable::ParamTableFull { max: max_params };
            return Err(self.fatal(node, position, what));
        }
        // Each literal's word (they are in slot order) points at it.
        let literals = offset + words.len();
        let mut pointers = (literals..)
            .zip(constants)
            .map(|(at, &(slot, _))| (slot, at as u64))
            .peekable();
        self.parts
            .params
            .extend(words.iter().enumerate().map(|(slot, &word)| {
                pointers
                    .next_if(|&(s, _)| s == slot)
                    .map_or(word, |(_, pointer)| pointer)
            }));
        self.parts
            .params
            .extend(constants.iter().map(|&(_, value)| value));
        Ok(ParamRange {
            offset: offset as u32,
            len: words.len() as u8,
        })
    }

    /// The leaf's item, or `None` after reporting why it has none.
    pub(super) fn leaf(
        &mut self,
        node: &Node,
        position: usize,
        name: &str,
        expect: Expect,
    ) -> Result<Option<ShapeItem>, Fatal> {
        if !node.children.is_empty() {
            let count = node.children.len();
            self.report(node, position, None, Unbuildable::ChildrenOnLeaf { count });
        }
        if name.is_empty() {
            self.report(node, position, None, Unbuildable::EmptyLeafName);
            return Ok(None);
        }
        let catalog = self.catalog;
        let Some(schema) = catalog.leaf(name) else {
            let suggestion = suggest(name, catalog.names()).map(Box::from);
            let what = Unbuildable::UnknownLeaf {
                name: name.into(),
                suggestion,
            };
            self.report(node, position, None, what);
            return Ok(None);
        };
        let expected = match (expect, schema.kind) {
            (_, kind) if !kind.is_leaf() => Some("a leaf"),
            (Expect::Any, _)
            | (Expect::Condition, Kind::Condition)
            | (Expect::Action, Kind::Action | Kind::Deferred)
            | (Expect::Decide, Kind::Decide) => None,
            (Expect::Condition, _) => Some("a condition"),
            (Expect::Decide, _) => Some("a Decide function"),
            (Expect::Action, _) => Some("an action"),
        };
        if let Some(expected) = expected {
            let what = Unbuildable::WrongLeafKind {
                name: name.into(),
                expected,
                found: schema.kind,
            };
            self.report(node, position, None, what);
            return Ok(None);
        }
        let entries = match schema.kind {
            Kind::Deferred => Some(
                "a deferred action's game system reads its parameters outside the agent's tick; pass a blackboard field",
            ),
            Kind::Decide => {
                Some("a Decide function's parameters read blackboard fields and literals")
            }
            _ => None,
        };
        let Some((words, constants)) = self.params(node, position, name, schema, entries) else {
            return Ok(None);
        };
        let import = self.import(node, position, name, schema)?;
        let params = self.append_params(node, position, &words, &constants)?;
        let flags = if schema.persistent || schema.memory > 0 {
            FLAG_PERSISTENT
        } else {
            0
        };
        Ok(Some(ShapeItem::leaf(schema.kind, flags, import, params)))
    }

    /// Matches the node's parameters to the schema's, by position then by
    /// name, fills defaults and encodes them: the leaf's words and its input
    /// literals (slot, value); `None` after reporting.
    pub(super) fn params(
        &mut self,
        node: &Node,
        position: usize,
        leaf: &str,
        schema: &LeafSchema,
        refused: Option<&'static str>,
    ) -> Option<LeafWords> {
        let specs = &schema.params;
        let mut given: Vec<Option<&NodeParam>> = vec![None; specs.len()];
        let mut ok = true;
        if specs.len() > MAX_LEAF_PARAMS {
            let what = Unbuildable::TooManyParams {
                leaf: leaf.into(),
                expected: MAX_LEAF_PARAMS,
                found: specs.len(),
            };
            self.report(node, position, None, what);
            ok = false;
        }
        let positional = node.params.iter().filter(|p| p.name.is_none()).count();
        if positional > specs.len() {
            let what = Unbuildable::TooManyParams {
                leaf: leaf.into(),
                expected: specs.len(),
                found: positional,
            };
            // (The extra values find no slot below, and are dropped.)
            ok &= self.mismatch(node, position, None, what, Kept::Dropped);
        }
        let mut next = 0;
        for param in &node.params {
            let slot = match &param.name {
                None => {
                    next += 1;
                    next - 1
                }
                Some(name) => match specs.iter().position(|s| s.name == *name) {
                    Some(i) => i,
                    None => {
                        let names = specs.iter().map(|s| &*s.name);
                        let what = Unbuildable::UnknownParam {
                            leaf: leaf.into(),
                            name: name.clone(),
                            suggestion: suggest(name, names).map(Box::from),
                        };
                        ok &= self.mismatch(node, position, param.source, what, Kept::Dropped);
                        continue;
                    }
                },
            };
            let (Some(entry), Some(spec)) = (given.get_mut(slot), specs.get(slot)) else {
                continue;
            };
            if entry.is_some() {
                let what = Unbuildable::DuplicateParam {
                    leaf: leaf.into(),
                    name: spec.name.clone(),
                };
                // (The later value replaces the earlier.)
                ok &= self.mismatch(node, position, param.source, what, Kept::Dropped);
            }
            *entry = Some(param);
        }
        let mut words = Vec::with_capacity(specs.len());
        let mut constants = Vec::new();
        for (spec, param) in specs.iter().zip(&given) {
            let compat_mode = self.compat;
            let fallback = || {
                let kept = compat_mode.then(|| compat::fallback(spec)).flatten();
                kept.map(|value| {
                    let name = spec.name.clone();
                    (value.clone(), Kept::Value { name, value })
                })
            };
            let (value, source) = match (param, &spec.default) {
                (Some(p), _) => (p.value.clone(), p.source),
                (None, Some(default)) => (default.clone(), None),
                (None, None) => {
                    let what = Unbuildable::MissingParam {
                        leaf: leaf.into(),
                        name: spec.name.clone(),
                        ty: spec.ty.clone(),
                    };
                    match fallback() {
                        Some((value, kept)) => {
                            self.mismatch(node, position, None, what, kept);
                            (value, None)
                        }
                        None => {
                            self.report(node, position, None, what);
                            ok = false;
                            continue;
                        }
                    }
                }
            };
            let mut encoded = encode_in(&mut self.parts, &spec.ty, &value, refused);
            if let Err(problem) = &encoded {
                let what = Unbuildable::BadParam {
                    leaf: leaf.into(),
                    name: spec.name.clone(),
                    problem: problem.clone(),
                };
                match fallback() {
                    Some((value, kept)) => {
                        encoded = encode_in(&mut self.parts, &spec.ty, &value, refused);
                        if encoded.is_ok() {
                            self.mismatch(node, position, source, what, kept);
                        } else {
                            self.report(node, position, source, what);
                        }
                    }
                    None => self.report(node, position, source, what),
                }
            }
            match encoded {
                Ok(Encoded::Word(word)) => words.push(word),
                Ok(Encoded::Constant(value)) => {
                    constants.push((words.len(), value));
                    words.push(0);
                }
                Err(_) => ok = false,
            }
        }
        ok.then_some((words, constants))
    }
}
