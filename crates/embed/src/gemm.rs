//! The one matrix product the encoder needs, over strided views of f32 slices.
//! `matrixmultiply` is an `unsafe` raw-pointer API; this wrapper checks every view
//! against its slice first, so callers stay in safe code.

/// A strided matrix view into a slice: element (r, c) is `data[offset + r*rs + c*cs]`.
#[derive(Clone, Copy)]
pub(crate) struct View {
    pub offset: usize,
    pub rows: usize,
    pub cols: usize,
    pub rs: usize,
    pub cs: usize,
}

impl View {
    /// A dense row-major `rows x cols` matrix starting at `offset`.
    pub fn dense(offset: usize, rows: usize, cols: usize) -> View {
        View {
            offset,
            rows,
            cols,
            rs: cols,
            cs: 1,
        }
    }

    /// The transpose of this view (no copy).
    pub fn t(self) -> View {
        View {
            rows: self.cols,
            cols: self.rows,
            rs: self.cs,
            cs: self.rs,
            ..self
        }
    }

    /// Same strides, different shape and start: a column block of a wider matrix.
    pub fn block(self, offset: usize, rows: usize, cols: usize) -> View {
        View {
            offset: self.offset + offset,
            rows,
            cols,
            ..self
        }
    }

    fn fits(&self, len: usize) -> bool {
        self.rows == 0
            || self.cols == 0
            || self.offset + (self.rows - 1) * self.rs + (self.cols - 1) * self.cs < len
    }
}

/// `c = alpha * a * b + beta * c`.
///
/// # Panics
/// When shapes disagree or a view reaches past its slice (a bug in the caller).
#[allow(clippy::too_many_arguments)]
pub(crate) fn gemm(
    alpha: f32,
    a: &[f32],
    av: View,
    b: &[f32],
    bv: View,
    beta: f32,
    c: &mut [f32],
    cv: View,
) {
    assert!(av.cols == bv.rows && av.rows == cv.rows && bv.cols == cv.cols);
    assert!(av.fits(a.len()) && bv.fits(b.len()) && cv.fits(c.len()));
    if cv.rows == 0 || cv.cols == 0 {
        return;
    }
    let s = |x: usize| x as isize;
    #[allow(unsafe_code)]
    // SAFETY: every element each view addresses lies inside its slice (asserted
    // above); `c` is borrowed mutably, so it cannot alias `a` or `b`.
    unsafe {
        matrixmultiply::sgemm(
            av.rows,
            av.cols,
            bv.cols,
            alpha,
            a.as_ptr().add(av.offset),
            s(av.rs),
            s(av.cs),
            b.as_ptr().add(bv.offset),
            s(bv.rs),
            s(bv.cs),
            beta,
            c.as_mut_ptr().add(cv.offset),
            s(cv.rs),
            s(cv.cs),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_a_naive_product_with_transposes_and_blocks() {
        // a: 2x3, w: 4x3 (row-major, as a Linear layer stores it); c = a * w^T.
        let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let w: Vec<f32> = (0..12).map(|x| x as f32 * 0.5 - 2.0).collect();
        let mut c = vec![0.0; 8];
        gemm(
            1.0,
            &a,
            View::dense(0, 2, 3),
            &w,
            View::dense(0, 4, 3).t(),
            0.0,
            &mut c,
            View::dense(0, 2, 4),
        );
        for i in 0..2 {
            for j in 0..4 {
                let want: f32 = (0..3).map(|k| a[i * 3 + k] * w[j * 3 + k]).sum();
                assert!(
                    (c[i * 4 + j] - want).abs() < 1e-5,
                    "{i},{j}: {} vs {want}",
                    c[i * 4 + j]
                );
            }
        }
        // A column block: the product of a's last two columns with w's block.
        let mut d = vec![0.0; 2];
        let av = View::dense(0, 2, 3).block(1, 2, 2);
        let bv = View::dense(0, 2, 1);
        gemm(
            1.0,
            &a,
            av,
            &[1.0, 1.0],
            bv,
            0.0,
            &mut d,
            View::dense(0, 2, 1),
        );
        assert_eq!(d, [5.0, 11.0]);
    }

    #[test]
    #[should_panic]
    fn a_view_past_its_slice_panics() {
        let a = [1.0; 4];
        let mut c = [0.0; 4];
        gemm(
            1.0,
            &a,
            View::dense(0, 2, 3),
            &a,
            View::dense(0, 3, 2),
            0.0,
            &mut c,
            View::dense(0, 2, 2),
        );
    }
}
