"""El arnés de tolerancias (tests/floats.py): separa el ruido de redondeo de lo medido
y dice en el mensaje la cantidad, su escala y la CPU."""

from __future__ import annotations

from tests.floats import EPS, close_or_both_noise, cpu_note, is_noise, noise_floor


def test_noise_floor_is_ulps_of_the_scale():
    assert noise_floor(1.0) == 100 * 2.0**-23
    assert noise_floor(-4.0, "float64", ulps=10) == 40 * EPS["float64"]


def test_two_collapsed_spreads_agree_whatever_their_noise():
    # Lo que pasó en una CPU sin AVX-512: 2,3e-8 frente a 1,09e-6 junto a ‖x‖ ≈ 1.
    assert is_noise(1.09e-6, scale=1.0) and is_noise(2.3e-8, scale=1.0)
    assert close_or_both_noise(2.3e-8, 1.09e-6, what="plana", scale=1.0) is None


def test_a_value_above_the_noise_is_not_taken_for_collapsed():
    message = close_or_both_noise(0.01, 1.09e-6, what="plana, spread", scale=1.0)
    assert message and "plana, spread" in message and "ruido de float32" in message
    assert "escala 1" in message and cpu_note() in message


def test_measured_values_compare_with_a_relative_tolerance():
    assert close_or_both_noise(2.0001, 2.0, what="x", scale=2.0) is None
    message = close_or_both_noise(2.01, 2.0, what="norma", scale=2.0)
    assert message and "norma" in message and "2.01" in message
    assert close_or_both_noise(float("nan"), 2.0, what="x", scale=2.0)


def test_cpu_note_names_the_torch_kernels():
    assert "núcleos ATen" in cpu_note()
