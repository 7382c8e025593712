#include "exec/delaunay.h"

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

#include "core/error.h"
#include "core/lazy_lib.h"

extern "C" {
#include <libqhull_r/qhull_ra.h>

// LAPACK (Debian's liblapack), Fortran calling convention with gfortran's hidden string lengths.
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void dgecon_(const char* norm, const int* n, const double* a, const int* lda, const double* anorm, double* rcond,
             double* work, int* iwork, int* info, std::size_t norm_len);
void dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* lda, const int* ipiv,
             double* b, const int* ldb, int* info, std::size_t trans_len);
}

// Qhull's and LAPACK's functions, from their libraries opened the first time a run triangulates (core/lazy_lib.h).
#define QH(fn) RM_LAZY(RM_SONAME_QHULL, fn)
#define LAPACK(fn) RM_LAZY(RM_SONAME_LAPACK, fn)

namespace rm {
namespace {

constexpr double kEps = 100 * DBL_EPSILON;  // interpnd's eps
const double kEpsBroad = std::sqrt(DBL_EPSILON);
constexpr int kMaxDim = 8;

}  // namespace

DelaunayInterpolator::DelaunayInterpolator(std::vector<double> points, int dim, std::vector<double> values, int width,
                                           const char* what)
    : dim_(dim), width_(width), points_(std::move(points)), values_(std::move(values)) {
  if (dim < 1 || dim > kMaxDim) throw InvariantError("delaunay: dimension out of range");
  const int n = static_cast<int>(points_.size() / static_cast<std::size_t>(dim));
  min_.assign(static_cast<std::size_t>(dim), std::numeric_limits<double>::infinity());
  max_.assign(static_cast<std::size_t>(dim), -std::numeric_limits<double>::infinity());
  for (int p = 0; p < n; ++p)
    for (int i = 0; i < dim; ++i) {
      const double v = points_[static_cast<std::size_t>(p * dim + i)];
      min_[i] = std::min(min_[i], v);
      max_[i] = std::max(max_[i], v);
    }

  // Qhull: the triangulation of the points lifted to the paraboloid, its lower facets.
  char* msg = nullptr;
  std::size_t msg_len = 0;
  FILE* err = open_memstream(&msg, &msg_len);
  qhT qh_storage;
  qhT* qh = &qh_storage;
  // QHULL_LIB_CHECK, through the lazily opened library
  QH(qh_lib_check)(QHULL_LIB_TYPE, sizeof(qhT), sizeof(vertexT), sizeof(ridgeT), sizeof(facetT), sizeof(setT),
                   sizeof(qhmemT));
  QH(qh_zero)(qh, err);
  char cmd[] = "qhull d Qbb Qc Qz Q12 Qt";
  std::vector<double> input = points_;  // Qhull reads it; it lifts a copy of its own
  int code = QH(qh_new_qhull)(qh, dim, n, input.data(), False, cmd, nullptr, err);
  if (code == 0) {
    QH(qh_triangulate)(qh);
    if (qh->SCALElast) {
      scale_ = qh->last_newhigh / (qh->last_high - qh->last_low);
      shift_ = -qh->last_low * scale_;
    }
    std::vector<int> id_map(qh->facet_id, -1);
    int count = 0;
    for (facetT* f = qh->facet_list; f && f->next; f = f->next)
      if (f->upperdelaunay == qh->UPPERdelaunay) {
        if (!f->simplicial &&
            (QH(qh_setsize)(qh, f->vertices) != dim + 1 || QH(qh_setsize)(qh, f->neighbors) != dim + 1))
          code = -1;
        id_map[f->id] = count++;
      }
    for (facetT* f = qh->facet_list; f && f->next && code == 0; f = f->next) {
      if (f->upperdelaunay != qh->UPPERdelaunay) continue;
      for (int i = 0; i <= dim; ++i) {
        auto* v = static_cast<vertexT*>(f->vertices->e[i].p);
        auto* nb = static_cast<facetT*>(f->neighbors->e[i].p);
        simplices_.push_back(QH(qh_pointid)(qh, v->point));
        neighbors_.push_back(id_map[nb->id]);
      }
      for (int i = 0; i <= dim; ++i) equations_.push_back(f->normal[i]);
      equations_.push_back(f->offset);
    }
  }
  QH(qh_freeqhull)(qh, !qh_ALL);
  int curlong = 0, totlong = 0;
  QH(qh_memfreeshort)(qh, &curlong, &totlong);
  std::fclose(err);
  const std::string text = msg ? std::string(msg, msg_len) : std::string();
  std::free(msg);
  if (code != 0) throw InputError(what, 0, "", "Qhull could not triangulate the points: " + text);

  // Barycentric transforms (scipy's _get_barycentric_transforms): T's memory in C order handed to LAPACK.
  const int ns = static_cast<int>(simplices());
  transforms_.assign(static_cast<std::size_t>(ns) * (dim + 1) * dim, 0.0);
  const double rcond_limit = 1000 * DBL_EPSILON;
  for (int s = 0; s < ns; ++s) {
    double* tr = &transforms_[static_cast<std::size_t>(s) * (dim + 1) * dim];
    double t[kMaxDim * kMaxDim];
    const int* sv = &simplices_[static_cast<std::size_t>(s) * (dim + 1)];
    for (int i = 0; i < dim; ++i) {
      tr[dim * dim + i] = points_[static_cast<std::size_t>(sv[dim] * dim + i)];
      for (int j = 0; j < dim; ++j) t[i * dim + j] = points_[static_cast<std::size_t>(sv[j] * dim + i)] - tr[dim * dim + i];
      tr[i * dim + i] = 1;
    }
    double anorm = 0;  // scipy's _matrix_norm1 over the memory as Fortran columns
    for (int j = 0; j < dim; ++j) {
      double col = 0;
      for (int i = 0; i < dim; ++i) col += std::fabs(t[j * dim + i]);
      if (anorm < col) anorm = col;
    }
    int nn = dim, info = 0, ipiv[kMaxDim + 1];
    LAPACK(dgetrf_)(&nn, &nn, t, &nn, ipiv, &info);
    if (info == 0) {
      double rcond = 0, work[4 * kMaxDim];
      int iwork[kMaxDim];
      LAPACK(dgecon_)("1", &nn, t, &nn, &anorm, &rcond, work, iwork, &info, 1);
      if (rcond < rcond_limit) info = 1;
    }
    if (info == 0) LAPACK(dgetrs_)("N", &nn, &nn, t, &nn, ipiv, tr, &nn, &info, 1);
    if (info != 0)
      for (int i = 0; i < (dim + 1) * dim; ++i) tr[i] = std::numeric_limits<double>::quiet_NaN();
  }
}

// c[k] of x in simplex s (c[dim] from the others, which must be set).
double DelaunayInterpolator::coordinate(int s, const double* x, const double* c, int k) const {
  const double* tr = &transforms_[static_cast<std::size_t>(s) * (dim_ + 1) * dim_];
  if (k == dim_) {
    double r = 1.0;
    for (int j = 0; j < dim_; ++j) r -= c[j];
    return r;
  }
  double r = 0;
  for (int j = 0; j < dim_; ++j) r += tr[dim_ * k + j] * (x[j] - tr[dim_ * dim_ + j]);
  return r;
}

bool DelaunayInterpolator::inside(int s, const double* x, double* c) const {
  const double* tr = &transforms_[static_cast<std::size_t>(s) * (dim_ + 1) * dim_];
  c[dim_] = 1.0;
  for (int i = 0; i < dim_; ++i) {
    c[i] = 0;
    for (int j = 0; j < dim_; ++j) c[i] += tr[dim_ * i + j] * (x[j] - tr[dim_ * dim_ + j]);
    c[dim_] -= c[i];
    if (!(-kEps <= c[i] && c[i] <= 1 + kEps)) return false;
  }
  return -kEps <= c[dim_] && c[dim_] <= 1 + kEps;
}

int DelaunayInterpolator::brute(const double* x, double* c) const {
  const int ns = static_cast<int>(simplices());
  for (int s = 0; s < ns; ++s) {
    const double* tr = &transforms_[static_cast<std::size_t>(s) * (dim_ + 1) * dim_];
    if (tr[0] == tr[0]) {
      if (inside(s, x, c)) return s;
      continue;
    }
    for (int k = 0; k <= dim_; ++k) {  // a degenerate simplex: its neighbours, with leeway towards it
      const int nb = neighbors_[static_cast<std::size_t>(s * (dim_ + 1) + k)];
      if (nb == -1) continue;
      const double* tn = &transforms_[static_cast<std::size_t>(nb) * (dim_ + 1) * dim_];
      if (tn[0] != tn[0]) continue;
      for (int i = 0; i <= dim_; ++i) c[i] = coordinate(nb, x, c, i);
      bool in = true;
      for (int m = 0; m <= dim_ && in; ++m) {
        const double lo = neighbors_[static_cast<std::size_t>(nb * (dim_ + 1) + m)] == s ? -kEpsBroad : -kEps;
        in = lo <= c[m] && c[m] <= 1 + kEps;
      }
      if (in) return nb;
    }
  }
  return -1;
}

int DelaunayInterpolator::directed(const double* x, double* c, int s) const {
  const int ns = static_cast<int>(simplices());
  if (s < 0 || s >= ns) s = 0;
  for (int cycle = 0; cycle < 1 + ns / 4; ++cycle) {
    if (s == -1) return -1;
    int state = 1;  // 1 inside, -1 hopped, 0 lost
    for (int k = 0; k <= dim_; ++k) {
      c[k] = coordinate(s, x, c, k);
      if (c[k] < -kEps) {
        const int m = neighbors_[static_cast<std::size_t>(s * (dim_ + 1) + k)];
        if (m == -1) return -1;
        s = m;
        state = -1;
        break;
      } else if (!(c[k] <= 1 + kEps)) {
        state = 0;
      }
    }
    if (state == -1) continue;
    if (state == 1) return s;
    return brute(x, c);
  }
  return brute(x, c);
}

int DelaunayInterpolator::find(const double* x, double* c) const {
  for (int i = 0; i < dim_; ++i)
    if (x[i] < min_[i] - kEps || x[i] > max_[i] + kEps) return -1;
  if (simplices() == 0) return -1;
  double z[kMaxDim + 1];
  z[dim_] = 0;
  for (int i = 0; i < dim_; ++i) {
    z[i] = x[i];
    z[dim_] += x[i] * x[i];
  }
  z[dim_] *= scale_;
  z[dim_] += shift_;
  auto dist = [&](int s) {
    const double* eq = &equations_[static_cast<std::size_t>(s) * (dim_ + 2)];
    double d = eq[dim_ + 1];
    for (int k = 0; k <= dim_; ++k) d += eq[k] * z[k];
    return d;
  };
  int s = 0;
  double best = dist(s);
  for (bool changed = true; changed;) {
    if (best > 0) break;
    changed = false;
    for (int k = 0; k <= dim_; ++k) {  // continues with the new simplex's next neighbour after a move, as scipy
      const int nb = neighbors_[static_cast<std::size_t>(s * (dim_ + 1) + k)];
      if (nb == -1) continue;
      const double d = dist(nb);
      if (d > best + kEps * (1 + std::fabs(best))) {
        s = nb;
        best = d;
        changed = true;
      }
    }
  }
  return directed(x, c, s);
}

void DelaunayInterpolator::operator()(const double* x, double* out) const {
  double c[kMaxDim + 1];
  const int s = find(x, c);
  for (int j = 0; j < width_; ++j) out[j] = s < 0 ? std::numeric_limits<double>::quiet_NaN() : 0.0;
  if (s < 0) return;
  for (int k = 0; k <= dim_; ++k) {
    const int m = simplices_[static_cast<std::size_t>(s * (dim_ + 1) + k)];
    for (int j = 0; j < width_; ++j) out[j] = out[j] + c[k] * values_[static_cast<std::size_t>(m * width_ + j)];
  }
}

}  // namespace rm
