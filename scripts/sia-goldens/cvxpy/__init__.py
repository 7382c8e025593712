# A small stand-in for cvxpy, enough for the Sia artifact's simulator (siasosp23/artifacts @aaf7a0d,
# sia-simulator/sia.py and gavel.py's policies) to run on Debian 12, where cvxpy is not packaged.
#
# It is ringmaster's own code (not cvxpy's), written for issue 44: it keeps every expression affine, as a sparse
# matrix over the problem's variables plus a constant, builds the same program the simulator states (columns: the
# variables in the order they were created, each row-major; rows: the constraints in the order given, each
# row-major), and solves it with Debian's python3-pulp driving coinor-cbc (/usr/bin/cbc), one thread, with the gap
# the simulator asks for (allowablePercentageGap / 100 as cbc's `ratio`). docs/sia.md has the recipe and why the
# numbers the solver sees are pulp's MPS numbers (13 significant digits).
#
# With SIA_SHIM_LOG=<path>, every solve appends one JSON line: the program's size, cbc's status, the objective value
# (full precision, computed here from the unrounded coefficients) and the variables at 1, so that ringmaster's
# --compat sia can be checked round by round.
import json
import os

import numpy as np
import pulp
import scipy.sparse as sp

__all__ = ["Variable", "Minimize", "Maximize", "Problem", "sum", "multiply", "CBC", "GLPK_MI", "ECOS",
           "OPTIMAL"]

CBC, GLPK_MI, GLPK, ECOS, OPTIMAL = "CBC", "GLPK_MI", "GLPK", "ECOS", "optimal"


class _Space:
    """The variables of the program being stated: one counter, in creation order."""
    size = 0
    integer = []


def _shape(s):
    if s is None:
        return ()
    if isinstance(s, (int, np.integer)):
        return (int(s),)
    return tuple(int(x) for x in s)


def _n(shape):
    return int(np.prod(shape)) if shape else 1


class Expression:
    """An affine expression: value = A @ x + c, flattened row-major to `shape`."""

    __array_ufunc__ = None  # numpy defers to the reflected operators (array @ expr, array * expr)

    def __init__(self, A, c, shape):
        self.A = sp.csr_matrix(A)
        self.c = np.asarray(c, dtype=np.float64).reshape(-1)
        self.shape = shape

    # --- helpers
    def _cols(self, m):
        if self.A.shape[1] < m:
            self.A = sp.csr_matrix((self.A.data, self.A.indices, self.A.indptr), shape=(self.A.shape[0], m))
        return self.A

    @staticmethod
    def _lift(x, shape=None):
        if isinstance(x, Expression):
            return x
        arr = np.asarray(x, dtype=np.float64)
        sh = arr.shape
        return Expression(sp.csr_matrix((_n(sh), _Space.size)), arr.reshape(-1), sh)

    @staticmethod
    def _broadcast(e, shape):
        if e.shape == shape:
            return e
        n = _n(shape)
        idx = np.broadcast_to(np.arange(_n(e.shape)).reshape(e.shape), shape).reshape(-1)
        A = e._cols(_Space.size)[idx]
        return Expression(A, e.c[idx], shape)

    def _binary(self, other, sign):
        a, b = Expression._lift(self), Expression._lift(other)
        shape = np.broadcast_shapes(a.shape, b.shape)
        a, b = Expression._broadcast(a, shape), Expression._broadcast(b, shape)
        m = _Space.size
        return Expression(a._cols(m) + sign * b._cols(m), a.c + sign * b.c, shape)

    # --- arithmetic
    def __add__(self, o):
        return self._binary(o, 1.0)

    __radd__ = __add__

    def __sub__(self, o):
        return self._binary(o, -1.0)

    def __rsub__(self, o):
        return Expression._lift(o)._binary(self, -1.0)

    def __neg__(self):
        return Expression(-self.A, -self.c, self.shape)

    def __mul__(self, o):
        if isinstance(o, Expression):
            raise TypeError("cvxpy shim: product of two expressions is not affine")
        arr = np.asarray(o, dtype=np.float64)
        if arr.ndim == 0:
            return Expression(self.A * float(arr), self.c * float(arr), self.shape)
        return multiply(self, arr)

    __rmul__ = __mul__

    def __matmul__(self, M):  # expr (m x n) @ array (n x q)
        M = np.asarray(M, dtype=np.float64)
        m, n = self.shape if len(self.shape) == 2 else (1, self.shape[0])
        M2 = M.reshape(n, -1)
        q = M2.shape[1]
        K = sp.kron(sp.identity(m, format="csr"), sp.csr_matrix(M2.T), format="csr")
        shape = (m, q) if len(self.shape) == 2 else (q,)
        if M.ndim == 1:
            shape = (m,) if len(self.shape) == 2 else ()
        return Expression(K @ self._cols(_Space.size), K @ self.c, shape)

    def __rmatmul__(self, W):  # array (p x m) @ expr (m x n)
        W = np.asarray(W, dtype=np.float64)
        if len(self.shape) == 1:
            m, n = self.shape[0], 1
        else:
            m, n = self.shape
        W2 = W.reshape(-1, m)
        p = W2.shape[0]
        K = sp.kron(sp.csr_matrix(W2), sp.identity(n, format="csr"), format="csr")
        shape = (p, n) if len(self.shape) == 2 else (p,)
        if W.ndim == 1:
            shape = (n,) if len(self.shape) == 2 else ()
        return Expression(K @ self._cols(_Space.size), K @ self.c, shape)

    def __getitem__(self, key):
        idx = np.arange(_n(self.shape)).reshape(self.shape)[key]
        sh = np.shape(idx)
        idx = np.asarray(idx).reshape(-1)
        return Expression(self._cols(_Space.size)[idx], self.c[idx], sh)

    # --- constraints
    def __le__(self, o):
        return Constraint(self - o, "<=")

    def __ge__(self, o):
        return Constraint(Expression._lift(o) - self, "<=")

    def __eq__(self, o):
        return Constraint(self - o, "==")

    __hash__ = object.__hash__

    @property
    def value(self):
        x = _Space.values
        if x is None:
            return None
        v = self._cols(len(x)) @ x + self.c
        return v.reshape(self.shape) if self.shape else float(v[0])

    @property
    def T(self):
        if len(self.shape) != 2:
            return self
        m, n = self.shape
        idx = np.arange(m * n).reshape(m, n).T.reshape(-1)
        return Expression(self._cols(_Space.size)[idx], self.c[idx], (n, m))


class Variable(Expression):
    def __init__(self, shape=(), integer=False, boolean=False, nonneg=False, name=None):
        shape = _shape(shape)
        n = _n(shape)
        first = _Space.size
        _Space.size += n
        _Space.integer.extend([integer or boolean] * n)
        A = sp.csr_matrix((np.ones(n), (np.arange(n), np.arange(first, first + n))), shape=(n, _Space.size))
        super().__init__(A, np.zeros(n), shape)
        self.first = first


class Constraint:
    """rows: lhs (<= or ==) 0, row-major."""

    def __init__(self, lhs, sense):
        self.lhs, self.sense = lhs, sense


def sum(expr, axis=None):
    e = Expression._lift(expr)
    if axis is None or len(e.shape) < 2:
        K = sp.csr_matrix(np.ones((1, _n(e.shape))))
        return Expression(K @ e._cols(_Space.size), K @ e.c, ())
    m, n = e.shape
    if axis == 0:
        K = sp.kron(sp.csr_matrix(np.ones((1, m))), sp.identity(n, format="csr"), format="csr")
        return Expression(K @ e._cols(_Space.size), K @ e.c, (n,))
    K = sp.kron(sp.identity(m, format="csr"), sp.csr_matrix(np.ones((1, n))), format="csr")
    return Expression(K @ e._cols(_Space.size), K @ e.c, (m,))


def multiply(a, b):
    if isinstance(a, Expression) and isinstance(b, Expression):
        raise TypeError("cvxpy shim: product of two expressions is not affine")
    e, arr = (a, b) if isinstance(a, Expression) else (b, a)
    arr = np.asarray(arr, dtype=np.float64)
    shape = np.broadcast_shapes(e.shape, arr.shape)
    e = Expression._broadcast(e, shape)
    w = np.broadcast_to(arr, shape).reshape(-1)
    D = sp.diags(w, format="csr")
    return Expression(D @ e._cols(_Space.size), w * e.c, shape)


class Minimize:
    sense = pulp.LpMinimize

    def __init__(self, expr):
        self.expr = Expression._lift(expr)


class Maximize(Minimize):
    sense = pulp.LpMaximize


class Problem:
    def __init__(self, objective, constraints=()):
        self.objective, self.constraints = objective, list(constraints)
        self.status, self.value = None, None

    def solve(self, solver=None, verbose=False, allowablePercentageGap=None, **kwargs):
        m = _Space.size
        lp = pulp.LpProblem("sia", self.objective.sense)
        names = [f"x{j:07d}" for j in range(m)]  # pulp orders columns by name
        xs = [pulp.LpVariable(names[j], cat=pulp.LpInteger if _Space.integer[j] else pulp.LpContinuous)
              for j in range(m)]
        obj = self.objective.expr
        A = obj._cols(m).tocsr()
        row = A.getrow(0)
        lp += pulp.LpAffineExpression([(xs[j], float(v)) for j, v in zip(row.indices, row.data) if v != 0.0]) + float(obj.c[0])
        k = 0
        for con in self.constraints:
            L = con.lhs._cols(m).tocsr()
            for r in range(L.shape[0]):
                rr = L.getrow(r)
                terms = [(xs[j], float(v)) for j, v in zip(rr.indices, rr.data) if v != 0.0]
                if not terms:
                    continue
                e = pulp.LpAffineExpression(terms)
                rhs = -float(con.lhs.c[r])
                lp += (e <= rhs) if con.sense == "<=" else (e == rhs), f"c{k:07d}"
                k += 1
        gap = None if allowablePercentageGap is None else allowablePercentageGap / 100.0
        is_mip = any(_Space.integer[:m])
        cmd = pulp.COIN_CMD(path="/usr/bin/cbc", msg=False, gapRel=gap, mip=is_mip)
        lp.solve(cmd)
        self.status = OPTIMAL if pulp.LpStatus[lp.status] == "Optimal" else pulp.LpStatus[lp.status].lower()
        x = np.array([v.varValue if v.varValue is not None else 0.0 for v in xs], dtype=np.float64)
        _Space.values = x
        self.value = float(obj.A @ x + obj.c[0]) if obj.A.shape[1] == m else float(obj._cols(m) @ x + obj.c[0])
        log = os.environ.get("SIA_SHIM_LOG")
        if log:
            with open(log, "a") as f:
                f.write(json.dumps({"cols": m, "rows": k, "status": self.status, "objective": repr(self.value),
                                    "ones": [int(j) for j in np.nonzero(np.round(x) != 0)[0]]}) + "\n")
        # the program is stated afresh each round: a new variable space
        _Space.size, _Space.integer = 0, []
        return self.value


_Space.values = None
