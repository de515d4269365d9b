//! The places a run already reported, so that a damaged place is one
//! finding however often the workload reads it: a random read workload
//! reads a bad block again and again, and without this each read was a
//! new finding (one changed byte made 11,143 findings in 1.5 s, and
//! `--max-errors 50` stopped the run after 0.02 s).
//!
//! A place is a byte range of a target (a block of a block workload, the
//! bad sectors of a file workload's read) in one generation: a later
//! finding of the same target and generation whose range lies within a
//! reported one is a repeat, counted apart (`findings_repeated`) and not
//! a finding. A write of the place gives it a new generation (block
//! workloads) or a file created again does (file workloads), so damage
//! found after that is new.
//!
//! Memory: at most [`REPORTED_CAP`] places (24 bytes each, 24 KiB); once
//! full, the oldest is forgotten, and a repeat of it counts as a finding
//! again. Lookups scan the list; they run only on a finding (cold).

/// Places remembered (the result document keeps the first 1,000
/// findings in full, so this holds at least the places they name).
pub const REPORTED_CAP: usize = 1024;

/// The offset that stands for a file's end: a truncation is one place per
/// file and generation wherever the reads met the end.
pub const END: u64 = u64::MAX;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Place {
    target: u32,
    gen: u8,
    first: u64,
    last: u64,
}

/// The places reported, oldest first from `next` once full.
#[derive(Debug, Default)]
pub struct Reported {
    places: Vec<Place>,
    next: usize,
}

impl Reported {
    pub fn new() -> Reported {
        Reported::default()
    }

    /// A finding on bytes `first..=last` of `target` in generation `gen`:
    /// true when it lies within a place already reported (a repeat),
    /// else it is remembered and false.
    pub fn repeat(&mut self, target: u32, gen: u8, first: u64, last: u64) -> bool {
        let seen = self
            .places
            .iter()
            .any(|p| p.target == target && p.gen == gen && p.first <= first && last <= p.last);
        if seen {
            return true;
        }
        let p = Place {
            target,
            gen,
            first,
            last,
        };
        if self.places.len() < REPORTED_CAP {
            self.places.push(p);
        } else {
            self.places[self.next] = p;
            self.next = (self.next + 1) % REPORTED_CAP;
        }
        false
    }

    /// Places remembered now.
    pub fn len(&self) -> usize {
        self.places.len()
    }

    pub fn is_empty(&self) -> bool {
        self.places.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_place_is_reported_once_per_generation_and_the_list_is_bounded() {
        let mut r = Reported::new();
        assert!(!r.repeat(1, 3, 4096, 4607));
        assert!(r.repeat(1, 3, 4096, 4607));
        // Within it: a repeat; wider, another target or generation: new.
        assert!(r.repeat(1, 3, 4096, 4100));
        assert!(!r.repeat(1, 3, 4096, 8191));
        assert!(r.repeat(1, 3, 4096, 4607));
        assert!(!r.repeat(2, 3, 4096, 4607));
        assert!(!r.repeat(1, 4, 4096, 4607));
        assert!(!r.repeat(1, 3, END, END));
        assert!(r.repeat(1, 3, END, END));
        // Full: the oldest place is forgotten first.
        let mut r = Reported::new();
        for i in 0..REPORTED_CAP as u64 + 1 {
            assert!(!r.repeat(0, 1, i * 512, i * 512 + 511));
        }
        assert_eq!(r.len(), REPORTED_CAP);
        assert!(!r.repeat(0, 1, 0, 511), "the first place was forgotten");
        assert!(r.repeat(
            0,
            1,
            REPORTED_CAP as u64 * 512,
            REPORTED_CAP as u64 * 512 + 1
        ));
    }
}
