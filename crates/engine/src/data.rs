//! What written blocks contain.
//!
//! Each worker fills its buffers once with the pattern's base content. For
//! `random` data every write then stamps the first 16 bytes of each 4 KiB
//! chunk with a value derived from the offset and a per-worker sequence, so
//! no two written chunks are alike (a deduplicating array cannot fold them)
//! and the rest stays incompressible. `compress:R` keeps 1/R of each chunk
//! random and zeroes the rest. `--dedupe P` makes P % of writes carry the
//! unstamped base content, which repeats across writes. The per-write cost
//! is one 16-byte store per 4 KiB for a unique write, and nothing for a
//! repeated one into a buffer that already holds the base content: the
//! worker keeps a [`BufState`] per buffer. A read fills a buffer with
//! whatever the device held; before that buffer is written from, the part
//! the read overwrote is copied back from the base content (fio refills
//! such buffers too), so `--data zero` writes zeros in a mixed workload.

use iolab_spec::DataPattern;

pub const CHUNK: usize = 4096;

/// What a repeated (`--dedupe`) block carries where a unique one has its stamp.
const BASE_MARK: [u8; 16] = [0xd5; 16];

/// What a worker knows about one of its buffers since it was filled with
/// the base content.
#[derive(Debug, Clone, Copy, Default)]
pub struct BufState {
    /// Leading bytes whose chunks may carry a write's stamp.
    pub stamped: u32,
    /// Leading bytes a read overwrote.
    pub read: u32,
}

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

    /// Fill a buffer with the base content (done once per buffer). It
    /// carries no stamps afterwards (`BufState::default()`).
    pub fn fill_base(&self, buf: &mut [u8], rng: &mut fastrand::Rng) {
        match self.pattern {
            DataPattern::Zero => buf.fill(0),
            DataPattern::Pattern { bytes } => bytes.fill(buf),
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
        if !matches!(
            self.pattern,
            DataPattern::Zero | DataPattern::Pattern { .. }
        ) {
            let mut c = 0;
            while c + 16 <= buf.len() {
                buf[c..c + 16].copy_from_slice(&BASE_MARK);
                c += CHUNK;
            }
        }
    }

    /// Make the first `len` bytes of `buf` this write's content: unique, or
    /// the base content for a repeated (`--dedupe`) write. `st` is the
    /// buffer's state; `base` is the base content, at least as long as
    /// anything a read put in the buffer (empty when reads and writes never
    /// share buffers).
    // Inlined into the worker loop: plain arguments rather than a struct
    // built per write.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn prepare_write(
        &self,
        buf: &mut [u8],
        len: usize,
        offset: u64,
        seq: u64,
        rng: &mut fastrand::Rng,
        st: &mut BufState,
        base: &[u8],
    ) {
        if st.read > 0 {
            // Put back what the read overwrote; its stamps went with it.
            let r = (st.read as usize).min(base.len()).min(buf.len());
            buf[..r].copy_from_slice(&base[..r]);
            if st.stamped as usize <= r {
                st.stamped = 0;
            }
            st.read = 0;
        }
        if matches!(
            self.pattern,
            DataPattern::Zero | DataPattern::Pattern { .. }
        ) {
            return;
        }
        if self.dedupe_pct > 0 && rng.u32(0..100) < self.dedupe_pct {
            // A repeated block: put the base marker back where stamps may
            // be, and touch nothing when there are none. A buffer that
            // holds the base content is neither read nor written here, so
            // it stays clean in the cache, and the device (or a kernel
            // thread on another CPU) reads it without pulling modified
            // lines from this CPU.
            let dirty = (st.stamped as usize).min(buf.len());
            let mut c = 0;
            while c + 16 <= dirty {
                buf[c..c + 16].copy_from_slice(&BASE_MARK);
                c += CHUNK;
            }
            st.stamped = 0;
            return;
        }
        st.stamped = st.stamped.max(len as u32);
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
        let (mut sa, mut sb) = (BufState::default(), BufState::default());
        g.prepare_write(&mut a, 8192, 0, 1, &mut rng, &mut sa, &[]);
        g.prepare_write(&mut b, 8192, 8192, 2, &mut rng, &mut sb, &[]);
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
        let base = a.clone();
        let (mut sa, mut sb) = (BufState::default(), BufState::default());
        // a: repeated twice; b: unique (stamped) twice, then repeated.
        repeat.prepare_write(&mut a, 16384, 0, 1, &mut rng, &mut sa, &[]);
        assert_eq!(a, base, "a repeated write into a fresh buffer changed it");
        repeat.prepare_write(&mut a, 16384, 16384, 2, &mut rng, &mut sa, &[]);
        assert_eq!(a, base, "a repeated block changed between writes");
        unique.prepare_write(&mut b, 4096, 0, 3, &mut rng, &mut sb, &[]);
        unique.prepare_write(&mut b, 12288, 0, 4, &mut rng, &mut sb, &[]);
        assert_ne!(b, a);
        // A shorter repeated write still removes every stamp.
        repeat.prepare_write(&mut b, 4096, 0, 5, &mut rng, &mut sb, &[]);
        assert_eq!(b, a, "the stamps of the unique writes were not all reset");
        assert_eq!(sb.stamped, 0);
    }

    #[test]
    fn a_buffer_a_read_used_gets_its_base_content_back() {
        for pattern in [
            DataPattern::Zero,
            DataPattern::Random,
            DataPattern::Compress { ratio: 2.0 },
        ] {
            let g = DataGen::new(pattern, 100);
            let mut rng = fastrand::Rng::with_seed(5);
            let mut buf = vec![0u8; 16384];
            g.fill_base(&mut buf, &mut rng);
            let base = buf.clone();
            // A unique write, then a read of 8 KiB (device data), then a
            // repeated write of 4 KiB: the first 8 KiB are base again and
            // no stamp is left anywhere.
            let unique = DataGen::new(pattern, 0);
            let mut st = BufState::default();
            unique.prepare_write(&mut buf, 16384, 0, 1, &mut rng, &mut st, &base);
            buf[..8192].fill(0x77);
            st.read = 8192;
            g.prepare_write(&mut buf, 4096, 0, 2, &mut rng, &mut st, &base);
            assert_eq!(buf, base, "{pattern:?}");
            assert_eq!((st.read, st.stamped), (0, 0));
        }
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
    fn a_pattern_is_written_as_is() {
        let bytes = iolab_spec::parse_pattern("0xaa555aa5").unwrap();
        let g = DataGen::new(DataPattern::Pattern { bytes }, 50);
        let mut rng = fastrand::Rng::with_seed(1);
        let mut a = vec![7u8; 8192];
        g.fill_base(&mut a, &mut rng);
        let mut st = BufState::default();
        g.prepare_write(&mut a, 8192, 4096, 9, &mut rng, &mut st, &[]);
        assert_eq!(bytes.first_mismatch(&a), None);
    }

    #[test]
    fn zero_stays_zero() {
        let g = DataGen::new(DataPattern::Zero, 0);
        let mut rng = fastrand::Rng::with_seed(1);
        let mut a = vec![7u8; 4096];
        g.fill_base(&mut a, &mut rng);
        g.prepare_write(
            &mut a,
            4096,
            4096,
            9,
            &mut rng,
            &mut BufState::default(),
            &[],
        );
        assert!(a.iter().all(|&b| b == 0));
    }
}
