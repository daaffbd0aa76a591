//! The four suits as vector shapes, so that the shape alone tells the suit
//! in black and white print: ♣ three lobes and a stem, ♦ a rhombus, ♥ a
//! heart, ♠ a spade with a stem.

use krilla::geom::{Path, PathBuilder};

/// A cubic Bézier's handle for a quarter circle.
const KAPPA: f32 = 0.552_284_8;

/// The suit's shape (0..4 in `CDHS` order) in the square at (`x`, `y`) of side `s`.
pub(crate) fn suit_path(suit: u8, x: f32, y: f32, s: f32) -> Option<Path> {
    let mut b = PathBuilder::new();
    // Points in the unit square, scaled into the box.
    let p = |u: f32, v: f32| (x + u * s, y + v * s);
    let curve = |b: &mut PathBuilder, c: [(f32, f32); 3]| {
        let (a, bb, e) = (p(c[0].0, c[0].1), p(c[1].0, c[1].1), p(c[2].0, c[2].1));
        b.cubic_to(a.0, a.1, bb.0, bb.1, e.0, e.1);
    };
    match suit {
        // Clubs: three round lobes and a flared stem.
        0 => {
            for (cx, cy) in [(0.5, 0.27), (0.26, 0.56), (0.74, 0.56)] {
                circle(&mut b, p(cx, cy), 0.21 * s);
            }
            stem(&mut b, &p);
        }
        // Diamonds: a rhombus.
        1 => {
            let (a, c, d, e) = (p(0.5, 0.0), p(0.88, 0.5), p(0.5, 1.0), p(0.12, 0.5));
            b.move_to(a.0, a.1);
            b.line_to(c.0, c.1);
            b.line_to(d.0, d.1);
            b.line_to(e.0, e.1);
            b.close();
        }
        // Hearts: two lobes over a point.
        2 => {
            let start = p(0.5, 0.95);
            b.move_to(start.0, start.1);
            curve(&mut b, [(0.15, 0.65), (0.0, 0.47), (0.0, 0.3)]);
            curve(&mut b, [(0.0, 0.12), (0.14, 0.04), (0.27, 0.04)]);
            curve(&mut b, [(0.4, 0.04), (0.47, 0.12), (0.5, 0.22)]);
            curve(&mut b, [(0.53, 0.12), (0.6, 0.04), (0.73, 0.04)]);
            curve(&mut b, [(0.86, 0.04), (1.0, 0.12), (1.0, 0.3)]);
            curve(&mut b, [(1.0, 0.47), (0.85, 0.65), (0.5, 0.95)]);
            b.close();
        }
        // Spades: a heart upside down, and a stem.
        _ => {
            let start = p(0.5, 0.02);
            b.move_to(start.0, start.1);
            curve(&mut b, [(0.85, 0.3), (1.0, 0.45), (1.0, 0.6)]);
            curve(&mut b, [(1.0, 0.76), (0.88, 0.84), (0.75, 0.84)]);
            curve(&mut b, [(0.63, 0.84), (0.55, 0.78), (0.5, 0.7)]);
            curve(&mut b, [(0.45, 0.78), (0.37, 0.84), (0.25, 0.84)]);
            curve(&mut b, [(0.12, 0.84), (0.0, 0.76), (0.0, 0.6)]);
            curve(&mut b, [(0.0, 0.45), (0.15, 0.3), (0.5, 0.02)]);
            b.close();
            stem(&mut b, &p);
        }
    }
    b.finish()
}

/// A circle of radius `r` about `c`, clockwise like the other shapes.
fn circle(b: &mut PathBuilder, c: (f32, f32), r: f32) {
    let k = KAPPA * r;
    let (x, y) = c;
    b.move_to(x, y - r);
    b.cubic_to(x + k, y - r, x + r, y - k, x + r, y);
    b.cubic_to(x + r, y + k, x + k, y + r, x, y + r);
    b.cubic_to(x - k, y + r, x - r, y + k, x - r, y);
    b.cubic_to(x - r, y - k, x - k, y - r, x, y - r);
    b.close();
}

/// The flared stem under a club or a spade.
fn stem(b: &mut PathBuilder, p: &impl Fn(f32, f32) -> (f32, f32)) {
    let pts = [p(0.46, 0.6), p(0.54, 0.6), p(0.64, 1.0), p(0.36, 1.0)];
    b.move_to(pts[0].0, pts[0].1);
    for q in &pts[1..] {
        b.line_to(q.0, q.1);
    }
    b.close();
}
