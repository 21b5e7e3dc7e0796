"""``python -m bench`` (o ``make bench``): cuánto cuesta el curso.

Cuatro medidas, cada cifra la mediana de varias corridas y cada comparación un
cociente medido en la misma corrida:

1. construcción del libro en frío (caché de ejecución vacía, en una copia temporal del
   repositorio) y en caliente (sin cambios; con una página markdown tocada), y el
   tiempo de ejecución de cada notebook (``bench.build``);
2. por página, peticiones y bytes transferidos con gzip, medidos en Chromium
   (``bench.pages``);
3. latencia de los widgets en la página estática, de la tecla al resultado en el DOM
   (``bench.widgets``);
4. coste de LayerNorm y RMSNorm frente a una copia (``resnorm.cost``).

Escribe ``bench/results.json`` e imprime una tabla. No forma parte de ``make test``:
es una medida, no una prueba cronometrada.
"""
