//! [`Rows`]: the game's own data laid out by agent, which a tick splits
//! along its chunks so that each agent's row is read and written on the
//! worker that ticks the agent ([`Crowd::tick_rows`](crate::Crowd::tick_rows)).
//!
//! An engine that keeps its entities' components in columns (Bevy's
//! tables) can then copy what the tree reads into a blackboard just before
//! the agent's tick and what its actions changed back just after, while
//! both are in the worker's cache, instead of in passes of their own
//! before and after the tick.

/// Data with one row per agent slot, in agent order (row `i` is
/// `AgentId(i)`'s), that can be split in two at any row, like a mutable
/// slice: a `&mut [T]` (a row is `&mut T`), a `&[T]` (`&T`), or a tuple of
/// up to four of them (a tuple of their rows), each as long as the others
/// (`()` stands for no rows). See [`Row`] for a row's type.
pub trait Rows: Send + Sized + for<'r> RowOf<'r> {
    /// Whether the rows fit a crowd of any size without being counted:
    /// `()`, no rows, which every tick without rows passes.
    const ENDLESS: bool = false;

    /// The number of rows.
    fn len(&self) -> usize;

    /// Whether there are no rows.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether every part holds as many rows as the others: always, but
    /// for a tuple whose parts differ in length.
    fn parts_agree(&self) -> bool {
        true
    }

    /// The rows before `mid` and those from it.
    ///
    /// # Panics
    /// If `mid > self.len()`.
    fn split_at(self, mid: usize) -> (Self, Self);

    /// Row `index`.
    ///
    /// # Panics
    /// If `index >= self.len()`.
    fn row(&mut self, index: usize) -> Row<'_, Self>;
}

/// The type of a row of `R` borrowed for `'r`.
pub type Row<'r, R> = <R as RowOf<'r>>::Row;

/// The type of a row of some [`Rows`], borrowed for `'r`. (Its second
/// parameter, always the default, bounds `'r` by the rows' own lifetime
/// wherever a row is named for every `'r`, as a tick's hooks name it.)
pub trait RowOf<'r, Within = &'r Self> {
    /// One agent's row.
    type Row;
}

impl<'r, T> RowOf<'r, &'r Self> for &mut [T] {
    type Row = &'r mut T;
}

impl<T: Send> Rows for &mut [T] {
    fn len(&self) -> usize {
        <[T]>::len(self)
    }

    fn split_at(self, mid: usize) -> (Self, Self) {
        self.split_at_mut(mid)
    }

    fn row(&mut self, index: usize) -> &mut T {
        &mut self[index]
    }
}

impl<'r, T> RowOf<'r, &'r Self> for &[T] {
    type Row = &'r T;
}

impl<T: Sync> Rows for &[T] {
    fn len(&self) -> usize {
        <[T]>::len(self)
    }

    fn split_at(self, mid: usize) -> (Self, Self) {
        <[T]>::split_at(self, mid)
    }

    fn row(&mut self, index: usize) -> &T {
        &self[index]
    }
}

impl RowOf<'_> for () {
    type Row = ();
}

/// No rows: the plain ticks', as long as any crowd.
impl Rows for () {
    const ENDLESS: bool = true;

    fn len(&self) -> usize {
        usize::MAX
    }

    fn split_at(self, _: usize) -> ((), ()) {
        ((), ())
    }

    fn row(&mut self, _: usize) {}
}

/// Tuples of rows, split together.
macro_rules! tuple_rows {
    ($first:ident $(, $rest:ident)*) => {
        impl<'r, $first: Rows, $($rest: Rows),*> RowOf<'r, &'r Self> for ($first, $($rest),*) {
            type Row = (Row<'r, $first>, $(Row<'r, $rest>),*);
        }

        #[allow(non_snake_case)]
        impl<$first: Rows, $($rest: Rows),*> Rows for ($first, $($rest),*) {
            fn len(&self) -> usize {
                self.0.len()
            }

            fn parts_agree(&self) -> bool {
                let ($first, $($rest),*) = self;
                $first.parts_agree() $(&& $rest.parts_agree() && $rest.len() == $first.len())*
            }

            fn split_at(self, mid: usize) -> (Self, Self) {
                let ($first, $($rest),*) = self;
                let $first = $first.split_at(mid);
                $(let $rest = $rest.split_at(mid);)*
                (($first.0, $($rest.0),*), ($first.1, $($rest.1),*))
            }

            fn row(&mut self, index: usize) -> Row<'_, Self> {
                let ($first, $($rest),*) = self;
                ($first.row(index), $($rest.row(index)),*)
            }
        }
    };
}

tuple_rows!(A, C);
tuple_rows!(A, C, D);
tuple_rows!(A, C, D, E);

/// Splits `rows` into chunks of `chunk` rows, front to back (the last may
/// hold fewer): the tick's chunks on a caller's pool.
pub(crate) struct Chunks<R> {
    rest: Option<R>,
    chunk: usize,
}

impl<R: Rows> Chunks<R> {
    pub(crate) fn new(rows: R, chunk: usize) -> Chunks<R> {
        Chunks {
            rest: Some(rows),
            chunk: chunk.max(1),
        }
    }
}

impl<R: Rows> Iterator for Chunks<R> {
    type Item = R;

    /// The next chunk; for `()`, an endless supply.
    fn next(&mut self) -> Option<R> {
        let rest = self.rest.take()?;
        let mid = self.chunk.min(rest.len());
        let (chunk, rest) = rest.split_at(mid);
        self.rest = Some(rest);
        Some(chunk)
    }
}

#[cfg(feature = "parallel")]
pub(crate) use parallel::ParChunks;

/// The tick's chunks of rows as a rayon iterator, zipped with the chunks
/// of the crowd's own columns.
#[cfg(feature = "parallel")]
mod parallel {
    use super::Rows;
    use rayon::iter::plumbing::{Consumer, Producer, ProducerCallback, UnindexedConsumer, bridge};
    use rayon::prelude::*;

    /// `chunks` chunks of `chunk` rows each (the last may hold fewer).
    pub(crate) struct ParChunks<R> {
        pub(crate) rows: R,
        pub(crate) chunk: usize,
        pub(crate) chunks: usize,
    }

    impl<R: Rows> ParallelIterator for ParChunks<R> {
        type Item = R;

        fn drive_unindexed<C: UnindexedConsumer<R>>(self, consumer: C) -> C::Result {
            bridge(self, consumer)
        }

        fn opt_len(&self) -> Option<usize> {
            Some(self.chunks)
        }
    }

    impl<R: Rows> IndexedParallelIterator for ParChunks<R> {
        fn len(&self) -> usize {
            self.chunks
        }

        fn drive<C: Consumer<R>>(self, consumer: C) -> C::Result {
            bridge(self, consumer)
        }

        fn with_producer<CB: ProducerCallback<R>>(self, callback: CB) -> CB::Output {
            callback.callback(self)
        }
    }

    impl<R: Rows> ParChunks<R> {
        /// The rows of the first `chunks` chunks, and the rest.
        fn split_chunks(self, chunks: usize) -> (ParChunks<R>, ParChunks<R>) {
            let rows = (chunks * self.chunk).min(self.rows.len());
            let (front, back) = self.rows.split_at(rows);
            (
                ParChunks {
                    rows: front,
                    chunk: self.chunk,
                    chunks,
                },
                ParChunks {
                    rows: back,
                    chunk: self.chunk,
                    chunks: self.chunks - chunks,
                },
            )
        }
    }

    impl<R: Rows> Producer for ParChunks<R> {
        type Item = R;
        type IntoIter = Iter<R>;

        fn into_iter(self) -> Iter<R> {
            Iter { rows: Some(self) }
        }

        fn split_at(self, index: usize) -> (ParChunks<R>, ParChunks<R>) {
            self.split_chunks(index)
        }
    }

    /// The chunks of a [`ParChunks`], in order, from either end.
    pub(crate) struct Iter<R> {
        rows: Option<ParChunks<R>>,
    }

    impl<R: Rows> Iterator for Iter<R> {
        type Item = R;

        fn next(&mut self) -> Option<R> {
            let rows = self.rows.take().filter(|rows| rows.chunks > 0)?;
            let (first, rest) = rows.split_chunks(1);
            self.rows = Some(rest);
            Some(first.rows)
        }

        fn size_hint(&self) -> (usize, Option<usize>) {
            let n = self.rows.as_ref().map_or(0, |rows| rows.chunks);
            (n, Some(n))
        }
    }

    impl<R: Rows> DoubleEndedIterator for Iter<R> {
        fn next_back(&mut self) -> Option<R> {
            let rows = self.rows.take().filter(|rows| rows.chunks > 0)?;
            let front = rows.chunks - 1;
            let (rest, last) = rows.split_chunks(front);
            self.rows = Some(rest);
            Some(last.rows)
        }
    }

    impl<R: Rows> ExactSizeIterator for Iter<R> {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tuples_split_and_borrow_every_part_together() {
        let (mut a, b) = ([1, 2, 3, 4], [10, 20, 30, 40]);
        let rows = (&mut a[..], &b[..]);
        let (mut front, mut back) = rows.split_at(1);
        assert_eq!((front.len(), back.len()), (1, 3));
        let (x, y) = back.row(2);
        *x += *y;
        let (x, _) = front.row(0);
        *x = 0;
        assert_eq!(a, [0, 2, 3, 44]);
    }

    #[test]
    fn a_tuples_parts_agree_when_each_is_as_long_as_the_first() {
        let (mut a, b, c) = ([0u8; 4], [0u16; 4], [0u32; 3]);
        assert!((&mut a[..], &b[..]).parts_agree());
        assert!(!(&b[..], &c[..]).parts_agree(), "the second part is short");
        assert!(!(&c[..], &b[..]).parts_agree(), "the first part is short");
        assert!(!((&b[..], &c[..]), &b[..]).parts_agree(), "a nested part");
        assert!(!(&a[..], &b[..], &c[..], &b[..]).parts_agree());
    }

    #[test]
    fn chunks_cover_the_rows_in_order() {
        let mut a: Vec<u32> = (0..10).collect();
        let lens: Vec<usize> = Chunks::new(&mut a[..], 4)
            .take(3)
            .map(|c| c.len())
            .collect();
        assert_eq!(lens, [4, 4, 2]);
    }

    #[cfg(feature = "parallel")]
    #[test]
    fn parallel_chunks_cover_the_rows_in_order_from_either_end() {
        use rayon::prelude::*;
        let mut a: Vec<u32> = (0..10).collect();
        let chunks = ParChunks {
            rows: &mut a[..],
            chunk: 3,
            chunks: 4,
        };
        let firsts: Vec<u32> = chunks.map(|c| c[0]).collect();
        assert_eq!(firsts, [0, 3, 6, 9]);
        let chunks = ParChunks {
            rows: &mut a[..],
            chunk: 3,
            chunks: 4,
        };
        let lasts: Vec<u32> = chunks.rev().map(|c| c[c.len() - 1]).collect();
        assert_eq!(lasts, [9, 8, 5, 2]);
        let chunks = ParChunks {
            rows: &mut a[..],
            chunk: 3,
            chunks: 4,
        };
        chunks.with_min_len(1).enumerate().for_each(|(i, c)| {
            for x in c {
                *x += 100 * i as u32;
            }
        });
        assert_eq!(a, [0, 1, 2, 103, 104, 105, 206, 207, 208, 309]);
    }
}
