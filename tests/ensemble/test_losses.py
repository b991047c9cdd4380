"""The boosting losses: gradients and hessians against finite differences, starting scores
that minimise the loss, weights, and the errors of bad parameters."""

import numpy as np
import pytest

from quercus.ensemble import losses

RNG = np.random.default_rng(0)
N = 40


def _targets(name):
    if name in ("poisson", "tweedie"):
        return RNG.poisson(2.0, N).astype(float)
    if name == "gamma":
        return RNG.gamma(2.0, 1.5, N)
    return RNG.normal(0.0, 3.0, N)


REGRESSION = [
    ("squared_error", {}),
    ("absolute_error", {}),
    ("quantile", {"quantile_alpha": 0.8}),
    ("huber", {"huber_delta": 1.3}),
    ("poisson", {}),
    ("gamma", {}),
    ("tweedie", {"power": 1.4}),
]
SMOOTH = {"squared_error", "poisson", "gamma", "tweedie"}


def _row_loss(loss, y, raw):
    """Each row's loss on its own (weight 1): shape (rows,)."""
    return np.array([loss.value(y[i : i + 1], raw[i : i + 1], np.ones(1)) for i in range(len(y))])


def _finite_differences(loss, y, raw):
    """Central first and second differences of each row's loss in each raw score (steps
    of 1e-6 and 1e-4: a second difference loses the square of its step to rounding)."""
    g = np.empty_like(raw)
    h = np.empty_like(raw)
    base = _row_loss(loss, y, raw)
    for k in range(raw.shape[1]):
        step = np.zeros_like(raw)
        step[:, k] = 1e-6
        g[:, k] = (_row_loss(loss, y, raw + step) - _row_loss(loss, y, raw - step)) / 2e-6
        step[:, k] = 1e-4
        up = _row_loss(loss, y, raw + step)
        down = _row_loss(loss, y, raw - step)
        h[:, k] = (up - 2 * base + down) / 1e-8
    return g, h


@pytest.mark.parametrize(("name", "options"), REGRESSION)
def test_regression_gradients_are_the_loss_derivatives(name, options):
    loss = losses.regression_loss(name, **options)
    y = _targets(name)
    raw = loss.start(y, np.ones(N)) + RNG.normal(0.0, 0.7, (N, 1))
    g, h = loss.gradients(y, raw, np.ones(N))
    g_fd, h_fd = _finite_differences(loss, y, raw)
    np.testing.assert_allclose(g, g_fd, rtol=1e-6, atol=1e-6)
    if name in SMOOTH:
        np.testing.assert_allclose(h, h_fd, rtol=1e-4, atol=1e-4)
    else:  # no curvature (or a kink): the booster's hessian is the weight
        np.testing.assert_array_equal(h, np.ones((N, 1)))


@pytest.mark.parametrize(("name", "options"), REGRESSION)
def test_gradients_scale_with_the_sample_weight(name, options):
    loss = losses.regression_loss(name, **options)
    y = _targets(name)
    raw = loss.start(y, np.ones(N)) + RNG.normal(0.0, 0.5, (N, 1))
    w = RNG.uniform(0.1, 3.0, N)
    g1, h1 = loss.gradients(y, raw, np.ones(N))
    gw, hw = loss.gradients(y, raw, w)
    np.testing.assert_allclose(gw, g1 * w[:, None], rtol=1e-12)
    np.testing.assert_allclose(hw, h1 * w[:, None], rtol=1e-12)


@pytest.mark.parametrize(("name", "options"), REGRESSION)
def test_the_start_minimises_the_weighted_loss(name, options):
    loss = losses.regression_loss(name, **options)
    y = _targets(name)
    w = RNG.uniform(0.1, 3.0, N)
    start = loss.start(y, w)
    best = loss.value(y, np.full((N, 1), start[0]), w)
    for shift in (-0.3, -0.01, 0.01, 0.3):
        assert loss.value(y, np.full((N, 1), start[0] + shift), w) >= best - 1e-12


@pytest.mark.parametrize("name", ["poisson", "gamma", "tweedie"])
def test_half_deviances_are_zero_at_the_target_and_positive_elsewhere(name):
    loss = losses.regression_loss(name)
    y = RNG.gamma(2.0, 1.5, N)
    raw = np.log(y)[:, None]
    np.testing.assert_allclose(_row_loss(loss, y, raw), 0.0, atol=1e-12)
    assert np.all(_row_loss(loss, y, raw + 0.2) > 0)
    np.testing.assert_allclose(loss.predict(raw), y, rtol=1e-12)


def test_binary_log_loss():
    loss = losses.classification_loss("log_loss", 2)
    y = RNG.integers(0, 2, N)
    raw = RNG.normal(0.0, 2.0, (N, 1))
    g, h = loss.gradients(y, raw, np.ones(N))
    g_fd, h_fd = _finite_differences(loss, y, raw)
    np.testing.assert_allclose(g, g_fd, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(h, h_fd, rtol=1e-4, atol=1e-5)
    w = RNG.uniform(0.1, 3.0, N)
    p1 = np.sum(w * y) / np.sum(w)
    np.testing.assert_allclose(loss.start(y, w), [np.log(p1 / (1 - p1))])
    proba = loss.predict(raw)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_allclose(proba[:, 1], 1 / (1 + np.exp(-raw[:, 0])))
    # far out in the tails the loss stays finite (log(1 + e**800) would overflow)
    assert np.isfinite(loss.value(np.array([0]), np.array([[800.0]]), np.ones(1)))


def test_multinomial_log_loss():
    loss = losses.classification_loss("log_loss", 4)
    assert loss.n_scores == 4
    y = RNG.integers(0, 4, N)
    raw = RNG.normal(0.0, 1.5, (N, 4))
    g, h = loss.gradients(y, raw, np.ones(N))
    g_fd, h_fd = _finite_differences(loss, y, raw)
    np.testing.assert_allclose(g, g_fd, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(h, h_fd, rtol=1e-4, atol=1e-5)  # the hessian's diagonal
    np.testing.assert_allclose(g.sum(axis=1), 0.0, atol=1e-12)
    w = RNG.uniform(0.1, 3.0, N)
    prior = np.bincount(y, weights=w, minlength=4) / w.sum()
    np.testing.assert_allclose(loss.predict(np.tile(loss.start(y, w), (3, 1))), [prior] * 3)


def test_weighted_quantile():
    v = np.array([3.0, 1.0, 2.0, 10.0])
    assert losses.weighted_quantile(v, np.ones(4), 0.5) == 2.5  # even count: the middle pair
    assert losses.weighted_quantile(v, np.array([1.0, 1.0, 1.0, 5.0]), 0.5) == 10.0
    # equal weights: interpolated as NumPy's percentile (position q (n - 1) = 0.3 and 2.7)
    assert losses.weighted_quantile(v, np.ones(4), 0.1) == pytest.approx(1.3)
    assert losses.weighted_quantile(v, np.full(4, 2.5), 0.9) == pytest.approx(7.9)
    # unequal weights: the first value whose cumulative weight reaches q of the total
    assert losses.weighted_quantile(v, np.array([1.0, 2.0, 1.0, 1.0]), 0.1) == 1.0
    assert losses.weighted_quantile(v, np.array([1.0, 2.0, 1.0, 1.0]), 0.7) == 3.0
    # rows of weight 0 count for nothing
    assert losses.weighted_quantile(v, np.array([1.0, 1.0, 0.0, 1.0]), 0.5) == 3.0
    many = RNG.normal(size=1001)
    assert losses.weighted_quantile(many, np.ones(1001), 0.5) == np.median(many)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: losses.regression_loss("hinge"), "loss must be one of"),
        (lambda: losses.regression_loss("quantile", quantile_alpha=1.0), "quantile must be"),
        (lambda: losses.regression_loss("huber", huber_delta=0.0), "huber_delta must be"),
        (lambda: losses.regression_loss("tweedie", power=2.0), "power must be strictly"),
        (lambda: losses.classification_loss("squared_error", 2), "'log_loss' for a classifier"),
        (lambda: losses.classification_loss("log_loss", 1), "at least 2 classes"),
    ],
)
def test_bad_parameters_are_named(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_log_link_losses_need_a_positive_mean():
    with pytest.raises(ValueError, match="log link needs some positive targets"):
        losses.poisson().start(np.zeros(5), np.ones(5))
    with pytest.raises(ValueError, match="both classes"):
        losses.binary_log_loss().start(np.ones(5), np.ones(5))


@pytest.mark.parametrize("weights", ["varied", "ones"])
@pytest.mark.parametrize("name", ["squared_error", "binary", "multinomial"])
def test_fused_targets_equal_their_numpy_twin(name, weights):
    """A loss's one-pass kernel (``fused``) gives the working targets and weights that
    ``newton_targets`` makes of its NumPy gradients, and the loss sum of its NumPy value,
    also at raw scores far beyond where the logistic saturates, for rows of weight 0, and
    for rows of weight 1 (whose logarithms the kernels take of products)."""
    from quercus.ensemble.boosting import loss_sums, newton_targets

    n = 2000
    w = RNG.uniform(0.0, 3.0, n)
    w[::50] = 0.0
    if weights == "ones":
        w[RNG.random(n) < 0.9] = 1.0
    if name == "squared_error":
        loss, classes = losses.regression_loss("squared_error"), False
        y_class, y_value = np.zeros(n, dtype=np.int32), RNG.normal(size=n)
    else:
        k = 2 if name == "binary" else 4
        loss, classes = losses.classification_loss("log_loss", k), True
        y_class, y_value = RNG.integers(0, k, n).astype(np.int32), np.zeros(n)
    raw = RNG.normal(scale=3.0, size=(n, loss.n_scores))
    raw[:20] *= 300.0  # scores of 1,000 and more: hessians that underflow
    target, weight, sums = loss.fused(y_class if classes else y_value, raw, w)
    twin_target, twin_weight = newton_targets(loss, classes, y_class, y_value, w, raw)
    np.testing.assert_allclose(target, twin_target, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(weight, twin_weight, rtol=1e-12, atol=0.0)
    assert np.array_equal(weight == 0.0, twin_weight == 0.0)
    np.testing.assert_allclose(sums, loss_sums(loss, classes, y_class, y_value, w, raw), rtol=1e-12)


def test_fused_targets_do_not_depend_on_the_threads():
    """The rows are cut in blocks whatever the threads: the same targets, weights and loss
    sums, bit for bit, on one thread and on three, and the same sums when the targets are
    not kept."""
    n = 3 * losses.FUSED_BLOCK_ROWS + 17
    loss = losses.classification_loss("log_loss", 3)
    y = RNG.integers(0, 3, n).astype(np.int32)
    raw = RNG.normal(size=(n, 3))
    w = RNG.uniform(0.5, 2.0, n)
    one = loss.fused(y, raw, w, 1)
    three = loss.fused(y, raw, w, 3)
    for a, b in zip(one, three, strict=True):
        np.testing.assert_array_equal(a, b)
    target, weight, sums = loss.fused(y, raw, w, 2, sums_only=True)  # the loss alone
    assert target is None and weight is None
    np.testing.assert_array_equal(sums, one[2])
