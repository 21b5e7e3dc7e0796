"""Pruebas de resnorm.blocks: los bloques hacen lo que dice el Capítulo 7."""

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

from resnorm.blocks import (  # noqa: E402
    MultiHeadSelfAttention,
    PostLNBlock,
    PreLNBlock,
    TransformerStack,
    build_stack,
)

D_MODEL, N_HEADS, D_FF = 16, 4, 32


def _input(seed=0, shape=(2, 5, D_MODEL)):
    g = torch.Generator().manual_seed(seed)
    return 3.0 * torch.randn(shape, generator=g) + 1.5


def _silence_sublayers(block):
    """Anula las proyecciones de salida: atención y FFN devuelven 0."""
    with torch.no_grad():
        for proj in (block.attn.c_proj, block.mlp.c_proj):
            proj.weight.zero_()
            proj.bias.zero_()


@pytest.mark.parametrize("block_cls", [PostLNBlock, PreLNBlock])
def test_blocks_keep_shape(block_cls):
    torch.manual_seed(0)
    block = block_cls(D_MODEL, N_HEADS, D_FF)
    x = _input()
    assert block(x).shape == x.shape


@pytest.mark.parametrize("kind", ["post_ln", "pre_ln"])
def test_stack_keeps_shape_and_has_n_layers(kind):
    torch.manual_seed(0)
    stack = build_stack(kind, 3, D_MODEL, N_HEADS, D_FF)
    assert isinstance(stack, TransformerStack)
    assert len(stack.blocks) == 3
    x = _input()
    assert stack(x).shape == x.shape


def test_pre_ln_with_silent_sublayers_is_identity():
    torch.manual_seed(0)
    block = PreLNBlock(D_MODEL, N_HEADS, D_FF)
    _silence_sublayers(block)
    x = _input()
    assert torch.equal(block(x), x)


def test_post_ln_with_silent_sublayers_is_layer_norm_of_x():
    torch.manual_seed(0)
    block = PostLNBlock(D_MODEL, N_HEADS, D_FF)
    _silence_sublayers(block)
    x = _input()
    expected = F.layer_norm(x, (D_MODEL,), eps=1e-5)
    out = block(x)
    # LN(LN(x)) = LN(x) salvo por el eps de la segunda normalización.
    torch.testing.assert_close(out, expected, atol=1e-4, rtol=1e-4)
    # Y no es la identidad: x tenía media 1.5 y std 3, la salida media 0 y std 1.
    assert not torch.allclose(out, x, atol=0.5)
    torch.testing.assert_close(out.mean(-1), torch.zeros(2, 5), atol=1e-5, rtol=0)


def test_pre_ln_stack_adds_final_layer_norm_post_ln_does_not():
    pre = build_stack("pre_ln", 2, D_MODEL, N_HEADS, D_FF)
    post = build_stack("post_ln", 2, D_MODEL, N_HEADS, D_FF)
    assert isinstance(pre.ln_f, nn.LayerNorm)
    assert isinstance(post.ln_f, nn.Identity)


def test_pre_ln_stack_with_silent_sublayers_is_final_layer_norm():
    torch.manual_seed(0)
    stack = build_stack("pre_ln", 4, D_MODEL, N_HEADS, D_FF)
    for block in stack.blocks:
        _silence_sublayers(block)
    x = _input()
    expected = F.layer_norm(x, (D_MODEL,), eps=1e-5)
    torch.testing.assert_close(stack(x), expected)


def test_build_stack_rejects_unknown_kind():
    with pytest.raises(ValueError, match="kind"):
        build_stack("sandwich_ln", 2, D_MODEL, N_HEADS, D_FF)


def test_attention_rejects_heads_that_do_not_divide_d_model():
    with pytest.raises(ValueError, match="múltiplo"):
        MultiHeadSelfAttention(10, 3)


@pytest.mark.parametrize("causal", [False, True])
def test_attention_matches_scaled_dot_product_attention(causal):
    torch.manual_seed(0)
    attn = MultiHeadSelfAttention(D_MODEL, N_HEADS, causal=causal)
    x = _input()
    B, T, C = x.shape
    hs = C // N_HEADS
    with torch.no_grad():
        q, k, v = attn.c_attn(x).split(C, dim=2)
        q, k, v = (t.view(B, T, N_HEADS, hs).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        expected = attn.c_proj(y.transpose(1, 2).reshape(B, T, C))
        out = attn(x)
    torch.testing.assert_close(out, expected, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("causal", [False, True])
def test_attention_matches_torch_multihead_attention_with_same_weights(causal):
    torch.manual_seed(0)
    mine = MultiHeadSelfAttention(D_MODEL, N_HEADS, causal=causal)
    ref = nn.MultiheadAttention(D_MODEL, N_HEADS, batch_first=True)
    with torch.no_grad():
        ref.in_proj_weight.copy_(mine.c_attn.weight)
        ref.in_proj_bias.copy_(mine.c_attn.bias)
        ref.out_proj.weight.copy_(mine.c_proj.weight)
        ref.out_proj.bias.copy_(mine.c_proj.bias)
    x = _input()
    T = x.shape[1]
    mask = torch.ones(T, T, dtype=torch.bool).triu(1) if causal else None
    with torch.no_grad():
        expected, _ = ref(x, x, x, attn_mask=mask, need_weights=False)
        out = mine(x)
    assert torch.allclose(out, expected, atol=1e-5)


def test_causal_attention_does_not_look_ahead():
    torch.manual_seed(0)
    attn = MultiHeadSelfAttention(D_MODEL, N_HEADS, causal=True)
    x = _input()
    x_changed = x.clone()
    x_changed[:, -1] += 10.0  # solo cambia la última posición
    with torch.no_grad():
        a, b = attn(x), attn(x_changed)
    torch.testing.assert_close(a[:, :-1], b[:, :-1])
    assert not torch.allclose(a[:, -1], b[:, -1])


def _record_calls(block):
    """Registra, en orden, qué submódulo se llamó con qué entrada y salida."""
    calls = []
    for name in ("ln_1", "attn", "ln_2", "mlp"):
        module = getattr(block, name)

        def hook(mod, args, out, name=name):
            calls.append((name, args[0].detach().clone(), out.detach().clone()))

        module.register_forward_hook(hook)
    return calls


def test_pre_ln_order_is_norm_then_sublayer_then_add():
    torch.manual_seed(0)
    block = PreLNBlock(D_MODEL, N_HEADS, D_FF)
    calls = _record_calls(block)
    x = _input()
    with torch.no_grad():
        out = block(x)
    assert [c[0] for c in calls] == ["ln_1", "attn", "ln_2", "mlp"]
    io = {name: (inp, out) for name, inp, out in calls}
    (ln1_in, ln1_out), (attn_in, attn_out) = io["ln_1"], io["attn"]
    (ln2_in, ln2_out), (mlp_in, mlp_out) = io["ln_2"], io["mlp"]
    assert torch.equal(ln1_in, x)  # LN ve la x cruda
    assert torch.equal(attn_in, ln1_out)  # la atención ve x normalizada
    assert torch.equal(ln2_in, x + attn_out)  # la suma usa x sin normalizar
    assert torch.equal(mlp_in, ln2_out)
    assert torch.equal(out, ln2_in + mlp_out)


def test_post_ln_order_is_sublayer_then_add_then_norm():
    torch.manual_seed(0)
    block = PostLNBlock(D_MODEL, N_HEADS, D_FF)
    calls = _record_calls(block)
    x = _input()
    with torch.no_grad():
        out = block(x)
    assert [c[0] for c in calls] == ["attn", "ln_1", "mlp", "ln_2"]
    io = {name: (inp, out) for name, inp, out in calls}
    (ln1_in, ln1_out), (attn_in, attn_out) = io["ln_1"], io["attn"]
    (ln2_in, ln2_out), (mlp_in, mlp_out) = io["ln_2"], io["mlp"]
    assert torch.equal(attn_in, x)  # la atención ve la x cruda
    assert torch.equal(ln1_in, x + attn_out)  # LN después de la suma
    assert torch.equal(mlp_in, ln1_out)
    assert torch.equal(ln2_in, ln1_out + mlp_out)
    assert torch.equal(out, ln2_out)  # la salida del bloque sale normalizada


def test_post_ln_output_is_normalized_pre_ln_output_is_not():
    torch.manual_seed(0)
    x = 10.0 * _input()
    post = PostLNBlock(D_MODEL, N_HEADS, D_FF)
    pre = PreLNBlock(D_MODEL, N_HEADS, D_FF)
    with torch.no_grad():
        y_post, y_pre = post(x), pre(x)
    ones = torch.ones(2, 5)
    torch.testing.assert_close(y_post.std(-1, correction=0), ones, atol=1e-3, rtol=0)
    # Pre-LN conserva la escala de x (std ≈ 30), no la recalibra a 1.
    assert (y_pre.std(-1, correction=0) > 10.0).all()


def test_dropout_is_inactive_in_eval_mode():
    torch.manual_seed(0)
    block = PreLNBlock(D_MODEL, N_HEADS, D_FF, dropout=0.5).eval()
    x = _input()
    with torch.no_grad():
        torch.testing.assert_close(block(x), block(x))
