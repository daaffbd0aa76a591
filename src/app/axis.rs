//! How the energy trace's axis writes its energies: one form for every
//! label of an axis, so that "0.0010" never stands next to "1.03e-4".

/// The one form of an axis's labels.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum AxisFormat {
    /// Fixed point with this many decimals.
    Fixed(usize),
    /// Scientific notation with this many decimals in the mantissa.
    Scientific(usize),
}

impl AxisFormat {
    /// The form for energies up to `highest` in size, told apart to `step`
    /// and with three significant digits at least: fixed point down to a
    /// ten-thousandth, scientific below that and from a million up.
    pub(super) fn of(lowest: f64, highest: f64, step: f64) -> AxisFormat {
        let big = lowest.abs().max(highest.abs());
        if !big.is_finite() || big == 0.0 {
            return AxisFormat::Fixed(0);
        }
        let e_big = big.log10().floor() as i32;
        let step = if step.is_finite() && step > 0.0 {
            step.min(10f64.powi(e_big - 2))
        } else {
            10f64.powi(e_big - 2)
        };
        let e_step = step.log10().floor() as i32;
        if -e_step <= 4 && big < 1e6 {
            AxisFormat::Fixed((-e_step).max(0) as usize)
        } else {
            AxisFormat::Scientific((e_big - e_step).clamp(0, 6) as usize)
        }
    }

    /// An energy in this form; a rounded zero has no sign.
    pub(super) fn write(self, energy: f64) -> String {
        let text = match self {
            AxisFormat::Fixed(d) => format!("{energy:.d$}"),
            AxisFormat::Scientific(d) => format!("{energy:.d$e}"),
        };
        match text.strip_prefix('-') {
            Some(rest) if rest.parse::<f64>() == Ok(0.0) => rest.to_string(),
            _ => text,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The labels of ticks 0, 1, 2, 5, 10, … units above `lowest`, up to `highest`.
    fn labels(lowest: f64, highest: f64, unit: f64) -> Vec<String> {
        let form = AxisFormat::of(lowest, highest, unit);
        (0..8)
            .flat_map(|e| [1.0, 2.0, 5.0].map(|m| m * 10f64.powi(e)))
            .chain([0.0])
            .map(|k| lowest + k * unit)
            .filter(|&e| e <= highest)
            .map(|e| form.write(e))
            .collect()
    }

    #[test]
    fn halfway_ratios_of_a_thousandth_are_all_scientific() {
        // E5 (the halfway ratio) from 0.003 down to 1.03e-4: the trace's
        // unit is 1e-6. Before, 6.03e-4 and 0.0011 stood on one axis.
        let form = AxisFormat::of(1.03e-4, 0.003, 1e-6);
        assert_eq!(form, AxisFormat::Scientific(3));
        assert_eq!(form.write(1.03e-4), "1.030e-4");
        assert_eq!(form.write(6.03e-4), "6.030e-4");
        assert_eq!(form.write(0.001103), "1.103e-3");
        let all = labels(1.03e-4, 0.003, 1e-6);
        assert!(all.len() > 5, "{all:?}");
        assert!(
            all.iter().all(|l| l.len() == 8 && l.contains("e-")),
            "{all:?}"
        );
    }

    #[test]
    fn energies_of_whole_numbers_share_their_decimals() {
        // E1 from -5 down to -20, unit 0.01.
        let form = AxisFormat::of(-20.0, -5.0, 0.01);
        assert_eq!(form, AxisFormat::Fixed(2));
        assert_eq!(form.write(-19.99), "-19.99");
        assert_eq!(form.write(-10.0), "-10.00");
        assert!(labels(-20.0, -5.0, 0.01).iter().all(|l| l.len() == 6));
        // A trace of one energy (unit 1) keeps three digits.
        assert_eq!(AxisFormat::of(-20.0, -20.0, 1.0), AxisFormat::Fixed(1));
        // A rounded zero has no sign, and nothing drawn is plain 0.
        assert_eq!(AxisFormat::Fixed(2).write(-1e-9), "0.00");
        assert_eq!(AxisFormat::of(0.0, 0.0, 1.0).write(0.0), "0");
        // Large energies go scientific too.
        assert_eq!(AxisFormat::of(2.5e6, 3e7, 1e4).write(2.5e6), "2.500e6");
    }
}
