// Piecewise-linear interpolation over a Delaunay triangulation, as scipy's LinearNDInterpolator does it (scipy 1.10,
// spatial/_qhull.pyx and interpolate/interpnd.pyx), which the Pollux simulator uses for the step times of a
// placement it never measured (peers/pollux/, exec/pollux_app.h): the triangulation by Qhull (Debian's libqhull_r,
// options "d Qbb Qc Qz Q12 Qt", scipy's defaults for fewer than 5 dimensions), each simplex's barycentric transform
// by LAPACK (dgetrf, dgecon, dgetrs; a simplex whose reciprocal condition number is below 1000 eps is degenerate),
// and a point located as scipy locates it: a walk on the lifted paraboloid towards a facet above the point, then a
// directed walk by barycentric coordinates (eps = 100 DBL_EPSILON), then brute force. Outside the hull: NaN.
#pragma once
#include <cstddef>
#include <vector>

namespace rm {

class DelaunayInterpolator {
 public:
  // `points`: n points of `dim` coordinates, row by row; `values`: n rows of `width` values. Throws InputError
  // (naming `what`) if Qhull fails.
  DelaunayInterpolator(std::vector<double> points, int dim, std::vector<double> values, int width,
                       const char* what);
  // The values at x (dim coordinates), into out (width values; NaN outside the hull).
  void operator()(const double* x, double* out) const;
  std::size_t simplices() const { return simplices_.size() / static_cast<std::size_t>(dim_ + 1); }

 private:
  int find(const double* x, double* c) const;
  int directed(const double* x, double* c, int start) const;
  int brute(const double* x, double* c) const;
  bool inside(int s, const double* x, double* c) const;
  double coordinate(int s, const double* x, const double* c, int k) const;

  int dim_ = 0, width_ = 0;
  std::vector<double> points_, values_, min_, max_;
  std::vector<int> simplices_, neighbors_;  // per simplex dim+1 point ids and neighbours (-1: none)
  std::vector<double> equations_;           // per simplex dim+2: the lifted facet's normal and offset
  std::vector<double> transforms_;          // per simplex (dim+1) x dim: T^-1 then r_n (NaN: degenerate)
  double scale_ = 1, shift_ = 0;            // the paraboloid's (Qbb)
};

}  // namespace rm
