"""Pruebas de resnorm.experiments: los datos muestran lo que dice el texto.

Las aserciones usan márgenes amplios (órdenes de magnitud, factores de 2): afirman la
dirección y la escala de cada efecto, no normas exactas.
"""

import json
import math

import pytest

torch = pytest.importorskip("torch")

from resnorm import experiments as ex  # noqa: E402

# Cuánto tarda cada experimento no se comprueba aquí (depende de la máquina): lo mide
# «make bench», en el tiempo de ejecución de cada capítulo que lo usa.


@pytest.fixture(scope="module")
def grad_depth():
    return ex.first_layer_grad_vs_depth()


@pytest.fixture(scope="module")
def survival():
    return ex.signal_survival()


@pytest.fixture(scope="module")
def act_std():
    return ex.activation_std_per_layer()


@pytest.fixture(scope="module")
def transformer():
    # Dos de las profundidades por defecto, con las mismas semillas: mismos números.
    return ex.transformer_grad_norms(n_layers=(3, 24))


@pytest.fixture(scope="module")
def train_adam():
    return ex.tiny_training(optimizer="adam")


@pytest.fixture(scope="module")
def train_sgd():
    return ex.tiny_training(optimizer="sgd")


# --- a. Gradiente de la primera capa frente a la profundidad (Capítulo 1) ----------


def test_plain_first_layer_gradient_is_1000x_smaller_than_residual_at_depth_32(
    grad_depth,
):
    i = grad_depth["depths"].index(32)
    plain = grad_depth["grad_norm"]["plain"][i]
    residual = grad_depth["grad_norm"]["residual"][i]
    assert plain * 1e3 <= residual


def test_plain_first_layer_gradient_vanishes_geometrically(grad_depth):
    g = grad_depth["grad_norm"]["plain"]
    assert all(b < a for a, b in zip(g, g[1:]))
    assert g[-1] < 1e-6 * g[0]  # 64 capas: al menos seis órdenes de magnitud


def test_residual_and_pre_ln_first_layer_gradient_does_not_vanish(grad_depth):
    for kind in ("residual", "pre_ln"):
        g = grad_depth["grad_norm"][kind]
        assert min(g) > 0.5 * g[0], kind


def test_pre_ln_first_layer_gradient_stays_within_factor_2(grad_depth):
    g = grad_depth["grad_norm"]["pre_ln"]
    assert max(g) < 2 * min(g)


def test_one_layer_shortcut_does_not_change_its_own_gradient(grad_depth):
    # Con L = 1 y los mismos pesos, ∂(x + tanh(Wx+b))/∂W = ∂tanh(Wx+b)/∂W.
    i = grad_depth["depths"].index(1)
    plain = grad_depth["grad_norm"]["plain"][i]
    residual = grad_depth["grad_norm"]["residual"][i]
    assert math.isclose(plain, residual, rel_tol=1e-6)


# --- b. Supervivencia de la señal (Capítulo 1) -------------------------------------


def test_without_shortcut_one_random_layer_already_loses_the_input(survival):
    assert all(abs(c) < 0.1 for c in survival["cosine"]["plain"])


def test_with_shortcut_the_input_survives_and_fades_slowly(survival):
    for kind in ("residual", "pre_ln"):
        cos = survival["cosine"][kind]
        assert cos[0] > 0.8, kind  # tras 1 capa
        assert cos[-1] > 0.1, kind  # tras 50 capas todavía queda algo de x
        assert all(b < a for a, b in zip(cos, cos[1:])), kind


def test_plain_stack_makes_different_inputs_look_alike(survival):
    i = survival["depths"].index(50)
    assert survival["pairwise_abs_cosine"]["plain"][i] > 0.9
    assert survival["pairwise_abs_cosine"]["residual"][i] < 0.3


# --- c. Desviación típica capa a capa (Capítulo 9) ---------------------------------


def test_plain_linear_stack_vanishes_or_explodes_geometrically(act_std):
    curves = act_std["curves"]
    assert curves["plain_gain_0.9"][-1] < 1e-3
    assert curves["plain_gain_1.1"][-1] > 1e3
    assert 0.5 < curves["plain_gain_1.0"][-1] < 2.0


def test_residual_without_layer_norm_explodes(act_std):
    assert act_std["curves"]["residual"][-1] > 1e10


@pytest.mark.parametrize(
    "name, factor",
    [("plain_gain_0.9", 0.9), ("plain_gain_1.1", 1.1), ("residual", math.sqrt(2))],
)
def test_std_follows_its_geometric_law_within_factor_2(act_std, name, factor):
    # Docstring: 0.9^96 ≈ 4e-5, 1.1^96 ≈ 9e3, residual sin LN ≈ √2^96 ≈ 3e14.
    n = act_std["params"]["n_layers"]
    ratio = act_std["curves"][name][-1] / factor**n
    assert 0.5 < ratio < 2.0


@pytest.mark.parametrize("name", ["plain_ln", "post_ln"])
def test_layer_norm_after_each_layer_keeps_std_1(act_std, name):
    stds = act_std["curves"][name][1:]  # el índice 0 es la entrada, std ≈ 1 por azar
    assert all(abs(s - 1.0) < 1e-3 for s in stds)


def test_pre_ln_residual_stream_grows_like_sqrt_of_depth(act_std):
    stds = act_std["curves"]["pre_ln"]
    for layer in act_std["layers"][1:]:
        assert stds[layer] == pytest.approx(math.sqrt(1 + layer), rel=0.2)
    assert stds[-1] > 5.0  # no se queda en std 1


# --- d. Gradientes por capa de pilas Transformer (Capítulos 7 y 9) -----------------


def test_transformer_grad_norms_have_one_value_per_layer(transformer):
    for kind in ("post_ln", "pre_ln"):
        for depth in (3, 24):
            norms = transformer["grad_norms"][kind][str(depth)]
            assert len(norms) == depth
            assert all(n > 0 and math.isfinite(n) for n in norms)


def test_pre_ln_last_layer_gradient_shrinks_with_depth(transformer):
    shallow, deep = transformer["last_layer"]["pre_ln"]
    assert deep < 0.7 * shallow  # el teorema predice ≈ √(3/24) ≈ 0.35


def test_post_ln_last_layer_gradient_does_not_shrink_with_depth(transformer):
    shallow, deep = transformer["last_layer"]["post_ln"]
    assert deep > 0.8 * shallow


def test_deep_post_ln_last_layer_gradient_exceeds_pre_ln(transformer):
    post = transformer["last_layer"]["post_ln"][-1]
    pre = transformer["last_layer"]["pre_ln"][-1]
    assert post > 2 * pre


def test_transformer_grad_norms_accepts_a_single_depth():
    data = ex.transformer_grad_norms(n_layers=2, n_seeds=1, seq_len=4, batch_size=2)
    assert data["n_layers"] == [2]
    assert set(data["grad_norms"]["pre_ln"]) == {"2"}


# --- e. Entrenamiento diminuto (Capítulo 9) ----------------------------------------


def test_with_adam_residual_and_pre_ln_learn_and_plain_does_not(train_adam):
    final = train_adam["final_loss"]
    assert all(v is None for v in train_adam["diverged_at_step"].values())
    assert final["plain"] > 0.3  # predecir la media da ≈ 1
    assert final["residual"] < 0.05
    assert final["pre_ln"] < 0.05
    assert final["plain"] > 10 * max(final["residual"], final["pre_ln"])


def test_with_sgd_residual_without_layer_norm_diverges_pre_ln_learns(train_sgd):
    assert train_sgd["diverged_at_step"]["residual"] is not None
    assert train_sgd["final_loss"]["residual"] is None
    assert train_sgd["diverged_at_step"]["pre_ln"] is None
    assert train_sgd["final_loss"]["pre_ln"] < 0.1
    assert train_sgd["final_loss"]["plain"] > 0.5


@pytest.mark.slow  # un entrenamiento entero con SGD
def test_with_smaller_sgd_learning_rate_residual_trains():
    data = ex.tiny_training(kinds=("residual",), optimizer="sgd", lr=0.01)
    assert data["diverged_at_step"]["residual"] is None
    assert data["final_loss"]["residual"] < 0.1


def test_loss_curves_have_one_value_per_step_unless_diverged(train_adam, train_sgd):
    for kind in ("plain", "residual", "pre_ln"):
        assert len(train_adam["losses"][kind]) == 300
    step = train_sgd["diverged_at_step"]["residual"]
    assert len(train_sgd["losses"]["residual"]) == step


def test_tiny_training_rejects_unknown_optimizer():
    with pytest.raises(ValueError, match="optimizer"):
        ex.tiny_training(optimizer="rmsprop", steps=1)


def test_unknown_kind_is_rejected():
    with pytest.raises(ValueError, match="desconocido"):
        ex.first_layer_grad_vs_depth(kinds=("sandwich",))


# --- Propiedades comunes -----------------------------------------------------------

SMALL_CALLS = [
    (ex.first_layer_grad_vs_depth, dict(depths=(1, 3), width=8, batch_size=4)),
    (ex.signal_survival, dict(depths=(1, 3), width=8, batch_size=4)),
    (ex.activation_std_per_layer, dict(n_layers=4, width=8, batch_size=4)),
    (
        ex.transformer_grad_norms,
        dict(n_layers=(1, 2), n_seeds=1, d_model=8, n_heads=2, d_ff=16, seq_len=4),
    ),
    (ex.tiny_training, dict(steps=5, depth=3, width=8, optimizer="sgd")),
]
SMALL_IDS = [fn.__name__ for fn, _ in SMALL_CALLS]


@pytest.mark.parametrize("fn, kwargs", SMALL_CALLS, ids=SMALL_IDS)
def test_experiment_is_deterministic(fn, kwargs):
    assert fn(**kwargs) == fn(**kwargs)


@pytest.mark.parametrize("fn, kwargs", SMALL_CALLS, ids=SMALL_IDS)
def test_experiment_changes_with_seed(fn, kwargs):
    assert fn(**kwargs, seed=0) != fn(**kwargs, seed=1)


@pytest.mark.parametrize("fn, kwargs", SMALL_CALLS, ids=SMALL_IDS)
def test_experiment_returns_strict_json_with_its_params(fn, kwargs):
    data = fn(**kwargs)
    assert json.loads(json.dumps(data, allow_nan=False)) == data
    assert data["params"]["seed"] == 0


@pytest.mark.parametrize("fn, kwargs", SMALL_CALLS, ids=SMALL_IDS)
def test_experiment_leaves_global_rng_and_threads_alone(fn, kwargs):
    threads = torch.get_num_threads()
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    fn(**kwargs)
    assert torch.equal(torch.rand(3), expected)
    assert torch.get_num_threads() == threads


def test_diverged_training_is_still_strict_json(train_sgd):
    json.dumps(train_sgd, allow_nan=False)
