//! How random offsets are chosen: the [`Distribution`] of a workload, its
//! text form (`--distribution`, fio's `random_distribution`) and its
//! checks. The generator that draws from it is `iolab_engine::gen`.

use crate::units::parse_size;
use crate::workload::SpecError;
use serde::{Deserialize, Serialize};

/// Most zones a `zoned` or `zoned_abs` distribution may have (fio's limit).
pub const MAX_ZONES: usize = 256;

/// One zone of a `zoned` (`size` is a percentage of the region) or
/// `zoned_abs` (`size` is bytes) distribution: `io_pct` % of random I/O
/// goes to it. Zones follow each other from the start of the region.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Zone {
    pub io_pct: f64,
    pub size: f64,
}

/// How random offsets are chosen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Distribution {
    /// Every block alike (fio `random`).
    Uniform,
    /// Zipf over the region's blocks with exponent `theta` (> 0, != 1);
    /// block ranks are scattered over the region by a fixed permutation,
    /// shifted so rank 0 lands `center` (0-1) of the way in; without a
    /// centre, the shift is drawn from the seed (fio's default).
    Zipf {
        theta: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        center: Option<f64>,
    },
    /// Pareto with power `h` (0 < h < 1; fio `pareto:h`): rank r of n is
    /// n * u^(ln h / ln(1-h)), scattered and centred as for zipf.
    Pareto {
        h: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        center: Option<f64>,
    },
    /// A Gaussian over the region, standard deviation `dev` % of the
    /// region (0 < dev < 100), centred `center` (0-1, default 0.5) of the
    /// way in; draws outside the region are drawn again.
    Normal { dev: f64, center: f64 },
    /// `io_pct` % of random I/O goes to the first `space_pct` % of the region.
    Hotspot { io_pct: f64, space_pct: f64 },
    /// fio `zoned`: zones in percent of the region, in order.
    Zoned { zones: Vec<Zone> },
    /// fio `zoned_abs`: zones in bytes from the region's start, in order.
    ZonedAbs { zones: Vec<Zone> },
}

impl std::fmt::Display for Distribution {
    /// The text form, as `--distribution` takes it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let centre = |c: &Option<f64>| c.map(|c| format!(":{c}")).unwrap_or_default();
        match self {
            Distribution::Uniform => write!(f, "uniform"),
            Distribution::Zipf { theta, center } => write!(f, "zipf:{theta}{}", centre(center)),
            Distribution::Pareto { h, center } => write!(f, "pareto:{h}{}", centre(center)),
            Distribution::Normal { dev, center } => write!(f, "normal:{dev}:{center}"),
            Distribution::Hotspot { io_pct, space_pct } => {
                write!(f, "hotspot:{io_pct}/{space_pct}")
            }
            Distribution::Zoned { zones } | Distribution::ZonedAbs { zones } => {
                let abs = matches!(self, Distribution::ZonedAbs { .. });
                write!(f, "{}", if abs { "zoned_abs" } else { "zoned" })?;
                for z in zones {
                    write!(f, ":{}/{}", z.io_pct, z.size)?;
                }
                Ok(())
            }
        }
    }
}

fn num(s: &str) -> Option<f64> {
    s.trim()
        .trim_end_matches('%')
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
}

/// `THETA[:CENTER]`: the value and the optional centre.
fn value_centre(t: &str) -> Option<(f64, Option<f64>)> {
    let mut it = t.split(':');
    let v = num(it.next()?)?;
    let c = match it.next() {
        Some(c) => Some(num(c)?),
        None => None,
    };
    it.next().is_none().then_some((v, c))
}

/// `IO/SIZE:IO/SIZE...` (sizes in percent, or bytes with `abs`). As in
/// fio (`examples/rand-zones.fio`: `zoned:50/5:30/15:20/`), zones of
/// `zoned` with an empty size share what the others leave of 100 %.
fn zones(t: &str, abs: bool) -> Result<Vec<Zone>, String> {
    let mut out = Vec::new();
    let mut blank = Vec::new();
    for z in t.split(':') {
        if let Some(a) = z.strip_suffix('/').filter(|_| !abs) {
            let io_pct =
                num(a).ok_or_else(|| format!("'{a}' in zone '{z}' is not a percentage"))?;
            blank.push(out.len());
            out.push(Zone { io_pct, size: 0.0 });
            continue;
        }
        let (a, b) = z
            .split_once('/')
            .ok_or_else(|| format!("zone '{z}' is not IO/SIZE"))?;
        let io_pct = num(a).ok_or_else(|| format!("'{a}' in zone '{z}' is not a percentage"))?;
        let size = if abs {
            parse_size(b.trim()).map_err(|_| format!("'{b}' in zone '{z}' is not a size"))? as f64
        } else {
            num(b).ok_or_else(|| format!("'{b}' in zone '{z}' is not a percentage"))?
        };
        out.push(Zone { io_pct, size });
    }
    if !blank.is_empty() {
        let left = 100.0 - out.iter().map(|z| z.size).sum::<f64>();
        for &i in &blank {
            out[i].size = left / blank.len() as f64;
        }
    }
    Ok(out)
}

/// Parse `--distribution`: `uniform` (or fio's `random`), `zipf:THETA[:CENTER]`,
/// `pareto:H[:CENTER]`, `normal:DEV[:CENTER]`, `hotspot:PCT_IO/PCT_SPACE`,
/// `zoned:IO/SPACE:...`, `zoned_abs:IO/SIZE:...`.
pub fn parse_distribution(s: &str) -> Result<Distribution, SpecError> {
    let bad = || {
        SpecError(format!(
            "--distribution {s} is not known; use uniform (or random), zipf:THETA[:CENTER] (e.g. zipf:1.2), pareto:H[:CENTER], normal:DEV%[:CENTER], hotspot:PCT_IO/PCT_SPACE (e.g. hotspot:90/10), zoned:IO/SPACE:... (e.g. zoned:60/10:30/20:10/70) or zoned_abs:IO/SIZE:... (e.g. zoned_abs:60/20g:40/100g)"
        ))
    };
    let s = s.trim();
    if s == "uniform" || s == "random" {
        return Ok(Distribution::Uniform);
    }
    let (kind, rest) = s.split_once(':').ok_or_else(bad)?;
    let d = match kind {
        "zipf" => {
            let (theta, center) = value_centre(rest).ok_or_else(bad)?;
            Distribution::Zipf { theta, center }
        }
        "pareto" => {
            let (h, center) = value_centre(rest).ok_or_else(bad)?;
            Distribution::Pareto { h, center }
        }
        "normal" | "gauss" => {
            let (dev, center) = value_centre(rest).ok_or_else(bad)?;
            Distribution::Normal {
                dev,
                center: center.unwrap_or(0.5),
            }
        }
        "hotspot" => {
            let (a, b) = rest.split_once('/').ok_or_else(bad)?;
            Distribution::Hotspot {
                io_pct: num(a).ok_or_else(bad)?,
                space_pct: num(b).ok_or_else(bad)?,
            }
        }
        "zoned" | "zoned_abs" => {
            if rest.contains(',') {
                return Err(SpecError(format!(
                    "--distribution {s}: zones per direction (fio's `,` between the read, write and trim sets) are not supported; give one set of zones for all I/O"
                )));
            }
            let abs = kind == "zoned_abs";
            let zones = zones(rest, abs).map_err(|why| {
                SpecError(format!(
                    "--distribution {s}: {why}; write e.g. {}",
                    if abs {
                        "zoned_abs:60/20g:40/100g"
                    } else {
                        "zoned:60/10:30/20:10/70"
                    }
                ))
            })?;
            if abs {
                Distribution::ZonedAbs { zones }
            } else {
                Distribution::Zoned { zones }
            }
        }
        _ => return Err(bad()),
    };
    d.validate()?;
    Ok(d)
}

impl Distribution {
    /// Check the values (what can be checked without the region).
    pub fn validate(&self) -> Result<(), SpecError> {
        let e = |s: String| Err(SpecError(s));
        let centre_ok = |c: Option<f64>| c.is_none_or(|c| (0.0..=1.0).contains(&c));
        match self {
            Distribution::Uniform => {}
            &Distribution::Zipf { theta, center } => {
                if !(theta > 0.0 && theta.is_finite()) || (theta - 1.0).abs() < 1e-9 {
                    return e(format!("zipf:{theta} is not usable; give a theta above 0 other than 1, e.g. zipf:1.2"));
                }
                if !centre_ok(center) {
                    return e(format!("{self}: the centre is a fraction of the region, 0 to 1, e.g. zipf:1.2:0.25"));
                }
            }
            &Distribution::Pareto { h, center } => {
                if !(h > 0.0 && h < 1.0) {
                    return e(format!(
                        "pareto:{h} is not usable; give a power between 0 and 1, e.g. pareto:0.2"
                    ));
                }
                if !centre_ok(center) {
                    return e(format!("{self}: the centre is a fraction of the region, 0 to 1, e.g. pareto:0.2:0.5"));
                }
            }
            &Distribution::Normal { dev, center } => {
                if !(dev > 0.0 && dev < 100.0) {
                    return e(format!("normal:{dev} is not usable; give the standard deviation as a percentage of the region above 0 and below 100, e.g. normal:10"));
                }
                if !centre_ok(Some(center)) {
                    return e(format!("{self}: the centre is a fraction of the region, 0 to 1, e.g. normal:10:0.5"));
                }
            }
            &Distribution::Hotspot { io_pct, space_pct } => {
                if !((0.0..=100.0).contains(&io_pct) && space_pct > 0.0 && space_pct <= 100.0) {
                    return e(
                        "hotspot:PCT_IO/PCT_SPACE takes percentages, e.g. hotspot:90/10".into(),
                    );
                }
            }
            Distribution::Zoned { zones } | Distribution::ZonedAbs { zones } => {
                validate_zones(self, zones)?
            }
        }
        Ok(())
    }
}

fn validate_zones(d: &Distribution, zones: &[Zone]) -> Result<(), SpecError> {
    let abs = matches!(d, Distribution::ZonedAbs { .. });
    let e = |why: String| Err(SpecError(format!("--distribution {d}: {why}")));
    if zones.is_empty() || zones.len() > MAX_ZONES {
        return e(format!("give 1 to {MAX_ZONES} zones"));
    }
    if zones.iter().any(|z| !(0.0..=100.0).contains(&z.io_pct)) {
        return e("each zone's share of I/O is a percentage, 0 to 100".into());
    }
    if zones
        .iter()
        .any(|z| z.size <= 0.0 || (!abs && z.size > 100.0))
    {
        return e(if abs {
            "each zone's size must be above 0 bytes".into()
        } else {
            "each zone's share of the region is a percentage above 0 and at most 100".into()
        });
    }
    let io: f64 = zones.iter().map(|z| z.io_pct).sum();
    if (io - 100.0).abs() > 1e-6 {
        return e(format!(
            "the zones' shares of I/O add up to {io} %, not 100 %"
        ));
    }
    if !abs {
        let space: f64 = zones.iter().map(|z| z.size).sum();
        if space > 100.0 + 1e-6 {
            return e(format!(
                "the zones' shares of the region add up to {space} %, more than 100 %"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_parses_and_prints_back() {
        for s in [
            "uniform",
            "zipf:1.2",
            "zipf:1.2:0.25",
            "pareto:0.2",
            "pareto:0.3:0.5",
            "normal:10:0.5",
            "hotspot:90/10",
            "zoned:60/10:30/20:10/70",
            "zoned_abs:60/1048576:40/2097152",
        ] {
            let d = parse_distribution(s).unwrap();
            assert_eq!(d.to_string(), s);
            assert_eq!(parse_distribution(&d.to_string()).unwrap(), d);
        }
        assert_eq!(parse_distribution("random").unwrap(), Distribution::Uniform);
        assert_eq!(
            parse_distribution("normal:5").unwrap(),
            Distribution::Normal {
                dev: 5.0,
                center: 0.5
            }
        );
        assert_eq!(
            parse_distribution("zoned:50/5:30/15:20/").unwrap(),
            parse_distribution("zoned:50/5:30/15:20/80").unwrap()
        );
        assert_eq!(
            parse_distribution("zoned_abs:60/20g:40/1m").unwrap(),
            Distribution::ZonedAbs {
                zones: vec![
                    Zone {
                        io_pct: 60.0,
                        size: 20.0 * (1u64 << 30) as f64
                    },
                    Zone {
                        io_pct: 40.0,
                        size: (1u64 << 20) as f64
                    }
                ]
            }
        );
    }

    #[test]
    fn bad_values_are_refused_with_one_line_naming_what_to_give() {
        for (s, needle) in [
            ("zipf:1", "other than 1"),
            ("zipf:1.2:2", "0 to 1"),
            ("pareto:1.5", "between 0 and 1"),
            ("normal:0", "above 0 and below 100"),
            ("normal:100", "above 0 and below 100"),
            ("zoned:60/10:30/20", "add up to 90 %"),
            ("zoned:50/60:50/60", "more than 100 %"),
            ("zoned:50/5:30/95:20/", "above 0 and at most 100"),
            ("zoned_abs:50/5m:50/", "not a size"),
            ("zoned:60/10,r50/50", "per direction"),
            ("zoned_abs:100/0", "above 0 bytes"),
            ("zoned_abs:100/x", "not a size"),
            ("sequence:1,2", "not known"),
            ("zipf", "not known"),
        ] {
            let e = parse_distribution(s).unwrap_err().0;
            assert!(e.contains(needle), "{s}: {e}");
            assert!(!e.contains('\n'));
        }
        let many = format!("zoned{}", ":0/0.1".repeat(300));
        assert!(parse_distribution(&many)
            .unwrap_err()
            .0
            .contains("1 to 256"));
    }
}
