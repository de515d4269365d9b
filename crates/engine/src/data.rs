//! What written blocks contain.
//!
//! Each worker fills its buffers once with the pattern's base content. For
//! `random` data every write then stamps the first 16 bytes of each 4 KiB
//! chunk with a value derived from the offset and a per-worker sequence, so
//! no two written chunks are alike (a deduplicating array cannot fold them)
//! and the rest stays incompressible. `compress:R` keeps 1/R of each chunk
//! random and zeroes the rest. `--dedupe P` makes P % of writes carry the
//! unstamped base content, which repeats across writes. The per-write cost
//! is one 16-byte store per 4 KiB.

use iolab_spec::DataPattern;

pub const CHUNK: usize = 4096;

/// What a repeated (`--dedupe`) block carries where a unique one has its stamp.
const BASE_MARK: [u8; 16] = [0xd5; 16];

#[derive(Clone, Copy)]
pub struct DataGen {
    pattern: DataPattern,
    dedupe_pct: u32,
}

impl DataGen {
    pub fn new(pattern: DataPattern, dedupe_pct: u32) -> Self {
        DataGen {
            pattern,
            dedupe_pct,
        }
    }

    /// Fill a buffer with the base content (done once per buffer).
    pub fn fill_base(&self, buf: &mut [u8], rng: &mut fastrand::Rng) {
        match self.pattern {
            DataPattern::Zero => buf.fill(0),
            DataPattern::Random => fill_random(buf, rng),
            DataPattern::Compress { ratio } => {
                let keep = ((CHUNK as f64 / ratio).ceil() as usize).clamp(16, CHUNK);
                for chunk in buf.chunks_mut(CHUNK) {
                    let k = keep.min(chunk.len());
                    fill_random(&mut chunk[..k], rng);
                    chunk[k..].fill(0);
                }
            }
        }
    }

    /// Make the first `len` bytes of `buf` unique for this write.
    #[inline]
    pub fn prepare_write(
        &self,
        buf: &mut [u8],
        len: usize,
        offset: u64,
        seq: u64,
        rng: &mut fastrand::Rng,
    ) {
        if matches!(self.pattern, DataPattern::Zero) {
            return;
        }
        if self.dedupe_pct > 0 && rng.u32(0..100) < self.dedupe_pct {
            // A repeated block: reset the stamps to the base marker. Only
            // stamps that differ are written: a buffer that already holds
            // the base content stays clean in the cache, so the device (or a
            // kernel thread on another CPU) reads it without pulling
            // modified cache lines from this CPU.
            for c in (0..len).step_by(CHUNK) {
                if c + 16 <= len && buf[c..c + 16] != BASE_MARK {
                    buf[c..c + 16].copy_from_slice(&BASE_MARK);
                }
            }
            return;
        }
        let mut c = 0;
        while c + 16 <= len {
            let a = (offset + c as u64) ^ 0x9e37_79b9_7f4a_7c15;
            let b = seq.wrapping_mul(0xbf58_476d_1ce4_e5b9) ^ (c as u64);
            buf[c..c + 8].copy_from_slice(&a.to_le_bytes());
            buf[c + 8..c + 16].copy_from_slice(&b.to_le_bytes());
            c += CHUNK;
        }
    }
}

fn fill_random(buf: &mut [u8], rng: &mut fastrand::Rng) {
    let mut chunks = buf.chunks_exact_mut(8);
    for c in &mut chunks {
        c.copy_from_slice(&rng.u64(..).to_le_bytes());
    }
    for b in chunks.into_remainder() {
        *b = rng.u8(..);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_writes_are_unique_per_chunk() {
        let g = DataGen::new(DataPattern::Random, 0);
        let mut rng = fastrand::Rng::with_seed(1);
        let mut a = vec![0u8; 8192];
        g.fill_base(&mut a, &mut rng);
        let mut b = a.clone();
        g.prepare_write(&mut a, 8192, 0, 1, &mut rng);
        g.prepare_write(&mut b, 8192, 8192, 2, &mut rng);
        assert_ne!(a[..4096], b[..4096]);
        assert_ne!(a[..4096], a[4096..]);
    }

    #[test]
    fn repeated_blocks_carry_the_same_content_after_unique_ones() {
        let unique = DataGen::new(DataPattern::Random, 0);
        let repeat = DataGen::new(DataPattern::Random, 100);
        let mut rng = fastrand::Rng::with_seed(3);
        let mut a = vec![0u8; 16384];
        unique.fill_base(&mut a, &mut rng);
        let mut b = a.clone();
        // a: repeated twice; b: unique (stamped), then repeated.
        repeat.prepare_write(&mut a, 16384, 0, 1, &mut rng);
        let first = a.clone();
        repeat.prepare_write(&mut a, 16384, 16384, 2, &mut rng);
        assert_eq!(a, first, "a repeated block changed between writes");
        unique.prepare_write(&mut b, 16384, 0, 3, &mut rng);
        assert_ne!(b, a);
        repeat.prepare_write(&mut b, 16384, 0, 4, &mut rng);
        assert_eq!(b, a, "the stamps of a unique write were not all reset");
    }

    #[test]
    fn compress_ratio_zeroes_the_rest() {
        let g = DataGen::new(DataPattern::Compress { ratio: 4.0 }, 0);
        let mut rng = fastrand::Rng::with_seed(1);
        let mut a = vec![1u8; 8192];
        g.fill_base(&mut a, &mut rng);
        let zeros = a.iter().filter(|&&b| b == 0).count();
        assert!((6000..6200).contains(&zeros), "{zeros}");
    }

    #[test]
    fn zero_stays_zero() {
        let g = DataGen::new(DataPattern::Zero, 0);
        let mut rng = fastrand::Rng::with_seed(1);
        let mut a = vec![7u8; 4096];
        g.fill_base(&mut a, &mut rng);
        g.prepare_write(&mut a, 4096, 4096, 9, &mut rng);
        assert!(a.iter().all(|&b| b == 0));
    }
}
