"""Bloques de Transformer Post-LN y Pre-LN en PyTorch (Capítulo 7: El bloque completo).

Cada bloque se lee en las pocas líneas que muestra el texto:

- Post-LN (Vaswani et al. 2017, «Attention Is All You Need», §3.1): la
  normalización de capa va *después* de la suma residual,
  ``x = LN(x + F(x))``.
- Pre-LN (Xiong et al. 2020, «On Layer Normalization in the Transformer
  Architecture»; es la disposición de GPT-2, Radford et al. 2019): la
  normalización va *antes* de la subcapa y la suma usa ``x`` sin normalizar,
  ``x = x + F(LN(x))``. Como el flujo residual nunca se normaliza, la pila
  necesita una LayerNorm final (``ln_f``), que GPT-2 añade tras el último bloque.

La FFN usa GELU en los dos bloques, como GPT-2 y nanoGPT. El Transformer original
usaba ReLU; aquí la activación es la misma en ambos para que la única diferencia
entre ``PostLNBlock`` y ``PreLNBlock`` sea el lugar de la LayerNorm.
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional as F

from resnorm.numerics import EPS

__all__ = [
    "MLP",
    "MultiHeadSelfAttention",
    "PostLNBlock",
    "PreLNBlock",
    "TransformerStack",
    "build_stack",
]

BLOCK_KINDS = ("post_ln", "pre_ln")


class MultiHeadSelfAttention(nn.Module):
    """Autoatención multicabeza con máscara causal opcional (Capítulo 7).

    Para cada cabeza h: ``softmax(Q_h K_hᵀ / √d_k) V_h``, con ``d_k = d_model /
    n_heads``; las cabezas se concatenan y pasan por una proyección de salida.
    Los pesos de Q, K y V van apilados en ``c_attn`` en ese orden, igual que
    ``in_proj_weight`` de ``torch.nn.MultiheadAttention``.

    Formas: entrada ``(B, T, C)`` → salida ``(B, T, C)``, con ``C = d_model``.
    """

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        dropout: float = 0.0,
        causal: bool = False,
        bias: bool = True,
    ) -> None:
        super().__init__()
        if d_model % n_heads != 0:
            raise ValueError(
                f"d_model ({d_model}) debe ser múltiplo de n_heads ({n_heads})"
            )
        self.d_model = d_model
        self.n_heads = n_heads
        self.causal = causal
        self.c_attn = nn.Linear(d_model, 3 * d_model, bias=bias)
        self.c_proj = nn.Linear(d_model, d_model, bias=bias)
        self.attn_dropout = nn.Dropout(dropout)
        self.resid_dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, C = x.shape
        hs = C // self.n_heads
        q, k, v = self.c_attn(x).split(C, dim=2)  # 3 × (B, T, C)
        q = q.view(B, T, self.n_heads, hs).transpose(1, 2)  # (B, nh, T, hs)
        k = k.view(B, T, self.n_heads, hs).transpose(1, 2)  # (B, nh, T, hs)
        v = v.view(B, T, self.n_heads, hs).transpose(1, 2)  # (B, nh, T, hs)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(hs)  # (B, nh, T, T)
        if self.causal:
            # Cada posición solo mira hacia atrás: se tapa el triángulo superior.
            future = torch.ones(T, T, dtype=torch.bool, device=x.device).triu(1)
            att = att.masked_fill(future, float("-inf"))
        att = F.softmax(att, dim=-1)
        att = self.attn_dropout(att)
        y = att @ v  # (B, nh, T, hs)
        y = y.transpose(1, 2).contiguous().view(B, T, C)  # (B, T, C)
        return self.resid_dropout(self.c_proj(y))


class MLP(nn.Module):
    """Red feed-forward por posición (FFN): ``W₂ GELU(W₁ x + b₁) + b₂`` (Capítulo 7).

    Formas: ``(B, T, d_model)`` → ``(B, T, d_ff)`` → ``(B, T, d_model)``.
    """

    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.0) -> None:
        super().__init__()
        self.c_fc = nn.Linear(d_model, d_ff)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class PostLNBlock(nn.Module):
    """Bloque Post-LN del Transformer original (Vaswani et al. 2017, §3.1).

    ``x' = LN(x + Attention(x))`` y ``x'' = LN(x' + FFN(x'))``: la LayerNorm va
    después de cada suma residual, así que la salida de cada bloque ya sale
    normalizada. Capítulo 7: El bloque completo.

    Formas: ``(B, T, d_model)`` → ``(B, T, d_model)``.
    """

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        d_ff: int,
        dropout: float = 0.0,
        causal: bool = False,
        eps: float = EPS,
    ) -> None:
        super().__init__()
        self.attn = MultiHeadSelfAttention(d_model, n_heads, dropout, causal)
        self.ln_1 = nn.LayerNorm(d_model, eps=eps)
        self.mlp = MLP(d_model, d_ff, dropout)
        self.ln_2 = nn.LayerNorm(d_model, eps=eps)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.ln_1(x + self.attn(x))
        x = self.ln_2(x + self.mlp(x))
        return x


class PreLNBlock(nn.Module):
    """Bloque Pre-LN (Xiong et al. 2020; GPT-2, Radford et al. 2019).

    ``x' = x + Attention(LN(x))`` y ``x'' = x' + FFN(LN(x'))``: cada subcapa
    ve una entrada normalizada, pero la suma residual usa ``x`` sin normalizar, de
    modo que el flujo residual es un «canal libre» de principio a fin. Capítulo 7:
    El bloque completo.

    Formas: ``(B, T, d_model)`` → ``(B, T, d_model)``.
    """

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        d_ff: int,
        dropout: float = 0.0,
        causal: bool = False,
        eps: float = EPS,
    ) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(d_model, eps=eps)
        self.attn = MultiHeadSelfAttention(d_model, n_heads, dropout, causal)
        self.ln_2 = nn.LayerNorm(d_model, eps=eps)
        self.mlp = MLP(d_model, d_ff, dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlp(self.ln_2(x))
        return x


class TransformerStack(nn.Module):
    """Pila de bloques seguida de ``ln_f`` (Capítulo 9: Profundidad).

    ``ln_f`` es una ``nn.LayerNorm`` en las pilas Pre-LN (el flujo residual llega
    sin normalizar y crece con la profundidad) y ``nn.Identity`` en las Post-LN
    (el último bloque ya termina en una LayerNorm).

    Formas: ``(B, T, d_model)`` → ``(B, T, d_model)``.
    """

    def __init__(self, kind: str, blocks: list[nn.Module], ln_f: nn.Module) -> None:
        super().__init__()
        self.kind = kind
        self.blocks = nn.ModuleList(blocks)
        self.ln_f = ln_f

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = block(x)
        return self.ln_f(x)


def build_stack(
    kind: str,
    n_layers: int,
    d_model: int,
    n_heads: int,
    d_ff: int,
    dropout: float = 0.0,
    causal: bool = False,
    eps: float = EPS,
) -> TransformerStack:
    """Construye una pila de ``n_layers`` bloques ``"post_ln"`` o ``"pre_ln"``.

    Pre-LN: ``x_L = x_0 + Σ_l F_l(LN(x_l))`` y la salida es ``ln_f(x_L)``, la
    LayerNorm final que GPT-2 añadió (Radford et al. 2019, §2.3). Post-LN: la salida
    es la del último bloque, que ya termina en LN (Vaswani et al. 2017, §3.1).
    Capítulo 9: Profundidad: escalas y gradientes.

    Formas: ``(B, T, d_model)`` → ``(B, T, d_model)``.
    """
    if kind not in BLOCK_KINDS:
        raise ValueError(f"kind debe ser uno de {BLOCK_KINDS}, no {kind!r}")
    if n_layers < 1:
        raise ValueError(f"n_layers debe ser al menos 1, no {n_layers}")
    block_cls = PreLNBlock if kind == "pre_ln" else PostLNBlock
    blocks = [
        block_cls(d_model, n_heads, d_ff, dropout, causal=causal, eps=eps)
        for _ in range(n_layers)
    ]
    ln_f = nn.LayerNorm(d_model, eps=eps) if kind == "pre_ln" else nn.Identity()
    return TransformerStack(kind, blocks, ln_f)
