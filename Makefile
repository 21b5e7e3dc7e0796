# Dos órdenes en una máquina nueva: `make book` y `make test` (ver README.md).
SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c
.DEFAULT_GOAL := book

VENV ?= .venv
PY := $(VENV)/bin/python
# --no-compile: Python compila cada módulo la primera vez que se importa (y guarda el
# .pyc); compilar al instalar todos los de torch, sympy, etc. no hace falta. Para que
# lo guarde, las órdenes de aquí no heredan PYTHONDONTWRITEBYTECODE: con esa variable
# (hay entornos que la ponen), cada proceso (cada núcleo de notebook, cada proceso de
# pytest, Sphinx) volvería a compilar torch y compañía, ≈ 2 s de CPU cada vez.
unexport PYTHONDONTWRITEBYTECODE
PIP := $(PY) -m pip --disable-pip-version-check
HTML := _build/html
PORT ?= 8000
export PYDEVD_DISABLE_FILE_VALIDATION := 1
export MPLBACKEND := Agg
# Un hilo de cálculo por proceso (torch y numpy): las órdenes de aquí ya reparten el
# trabajo en procesos (un notebook por núcleo; tres procesos de pruebas junto a
# Chromium). Con un hilo más cada uno, las operaciones pequeñas esperan a hilos que no
# tienen núcleo: en una máquina ocupada, generar 600 caracteres con los modelos del
# capítulo 10 pasaba de 0,6 s a 4,5–6 s (con un hilo, 1,2 s). Las cifras del libro no
# cambian: los entrenamientos ya fijan sus hilos (resnorm.gpt, resnorm.experiments).
export OMP_NUM_THREADS := 1

.PHONY: book test serve deps test-deps vendor clean bench
.PHONY: lab lab-deps

$(PY):
	python3 -m venv $(VENV)

# requirements.txt fija el entorno entero, dependencias indirectas incluidas: no hay
# nada que resolver (--no-deps), y «pip check» falla si a un paquete le falta alguna.
# Lo instala uv (fijado en UV_PIN), y pip si uv no se puede instalar (o con
# PIP_SOLO=1): medido aquí, con la máquina ocupada, los 108 paquetes de
# requirements.txt sin torch tardan 26 s con uv, 108 s con pip en dos procesos y 178 s
# en uno (pip descomprime e instala en un solo hilo). torch va siempre con pip: la
# configuración de pip de la máquina puede tener la rueda para CPU en disco, y uv no la
# mira (pediría la de CUDA, de varios GB).
UV_PIN := uv==0.13.10
# $(call install,PYTHON,ARGUMENTOS): instala ARGUMENTOS en el entorno de PYTHON.
install = { [ -z "$(PIP_SOLO)" ] \
  && $(1) -m pip --disable-pip-version-check install -q $(UV_PIN) > /dev/null 2>&1 \
  && $(dir $(1))uv pip install -q --python $(1) $(2); } \
  || $(1) -m pip --disable-pip-version-check install -q --no-compile $(2)
$(VENV)/.deps: requirements.txt pyproject.toml | $(PY)
	grep -v '^-e' requirements.txt | sed 's/#.*//' | grep . > $(VENV)/fijados.txt
	status=0; \
	$(PIP) install -q --no-compile --no-deps $$(grep '^torch==' $(VENV)/fijados.txt) \
	  & t=$$!; \
	$(call install,$(PY),--no-deps -e . \
	  -r <(grep -v '^torch==' $(VENV)/fijados.txt)) || status=1; \
	wait $$t || status=1; exit $$status
	$(PIP) check
	@# ipykernel >= 7.3 avisa en cada arranque de que el transporte TCP no va cifrado.
	@# Aquí los núcleos escuchan solo en 127.0.0.1 y los lanza el propio proceso, así
	@# que el núcleo del entorno se configura para registrar solo errores.
	mkdir -p $(VENV)/etc/ipython
	printf '{"IPKernelApp": {"log_level": "ERROR"}}\n' \
	  > $(VENV)/etc/ipython/ipython_kernel_config.json
	touch $@

# Solo lo que añade requirements-test.txt (su «-r requirements.txt» ya está instalado),
# con las versiones de requirements.txt como restricción (las de fijados.txt, que
# escribe $(VENV)/.deps): así no se reinstala resnorm (-e .) ni cambia nada de lo que
# usa el libro, y «make test» lo instala mientras se ejecutan los notebooks.
#
# Y la rueda de Jupyter Book 1 sin instalar (JB_WHEEL): solo la lee la prueba de que
# _config.yml sigue su esquema (tests/test_build.py). Instalada, fijaría Sphinx 7.
JB_WHEEL := jupyter-book==1.0.4.post1
$(VENV)/.test-deps: requirements-test.txt $(VENV)/.deps
	$(call install,$(PY),-c $(VENV)/fijados.txt -r <(grep -v '^-r' requirements-test.txt))
	$(PIP) download -q --no-deps --only-binary=:all: $(JB_WHEEL) -d $(VENV)/jupyter-book
	touch $@

# JupyterLab, en su propio entorno $(LAB_VENV): fuera de $(VENV), porque sus
# dependencias alargan cada construcción del libro. Su núcleo es el Python de $(VENV)
# (con resnorm): el kernelspec «python3» de $(LAB_KERNELS) apunta a él.
export LAB_VENV := $(VENV)-lab
LAB_KERNELS := $(LAB_VENV)/share/resnorm
# Sin MPLBACKEND ni OMP_NUM_THREADS: el núcleo de quien aprende, como en su máquina
# (figuras en línea; torch con sus hilos).
LAB_ENV := env -u MPLBACKEND -u OMP_NUM_THREADS JUPYTER_PATH=$(abspath $(LAB_KERNELS))

$(LAB_VENV)/.deps: requirements-lab.txt
	python3 -m venv $(LAB_VENV)
	$(call install,$(LAB_VENV)/bin/python,-r requirements-lab.txt)
	mkdir -p $(LAB_KERNELS)/kernels/python3
	printf '%s\n' '{"argv": ["$(abspath $(PY))", "-m", "ipykernel_launcher",' \
	  '"-f", "{connection_file}"], "display_name": "Python 3 (ipykernel)",' \
	  '"language": "python"}' > $(LAB_KERNELS)/kernels/python3/kernel.json
	touch $@

lab-deps: $(LAB_VENV)/.deps

# Los cuadernos del alumno en JupyterLab, en local (http://127.0.0.1:8888, con token),
# en español (el paquete de idioma de requirements-lab.txt y binder/overrides.json),
# sin el aviso de noticias de Jupyter (en inglés, encima del cuaderno, y una petición a
# la red) ni la búsqueda de versiones nuevas,
# sobre una copia de trabajo ($(LAB_DIR)): se copian de $(HTML)/cuadernos solo los que
# faltan, así que lo que escribe quien aprende no toca las fuentes (notebooks/) ni lo
# pisa la construcción siguiente. Para recibir la versión nueva de un capítulo, se
# borra (o se cambia de nombre) su copia de $(LAB_DIR). Es el trabajo de quien aprende:
# vive fuera de _build/, git no la ve (.gitignore) y ninguna orden la borra (tampoco
# «make clean»).
LAB_DIR := mi-trabajo
.PHONY: lab-copy
lab-copy:
	@mkdir -p $(LAB_DIR)
	@for nb in $(HTML)/cuadernos/*.ipynb; do \
	  [ -e "$(LAB_DIR)/$${nb##*/}" ] || cp "$$nb" $(LAB_DIR)/; \
	done

LAB_SETTINGS := $(LAB_VENV)/share/jupyter/lab/settings
# Los ajustes por defecto de Lab: binder/overrides.json, el mismo archivo que Binder y
# el hub (binder/postBuild). Se escribe aparte y se renombra: tests/test_hub.py y
# tests/test_jupyterlab.py lo escriben a la vez, y Lab no lee nunca uno a medias.
.PHONY: lab-settings
lab-settings:
	@mkdir -p $(LAB_SETTINGS)
	@cp binder/overrides.json $(LAB_SETTINGS)/.overrides.json.$$$$ \
	  && mv -f $(LAB_SETTINGS)/.overrides.json.$$$$ $(LAB_SETTINGS)/overrides.json

lab: book lab-deps
	@$(MAKE) --no-print-directory lab-copy lab-settings
	$(LAB_ENV) $(LAB_VENV)/bin/jupyter-lab --ip=127.0.0.1 \
	  --KernelSpecManager.ensure_native_kernel=False --ServerApp.root_dir=$(LAB_DIR) \
	  --LabApp.news_url=None --LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate \
	  $(if $(filter 0,$(shell id -u)),--allow-root)

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	touch $@

# Thebe («Código en vivo»): sphinx-thebe 0.3.1 lo pediría a unpkg.com; el sitio sirve
# esta copia. No va en package.json: su paquete declara como dependencias (unas 870)
# lo que su lib/ ya trae empaquetado. npm descarga el paquete publicado y se comprueba
# su huella (la «integrity» del registro) antes de copiar lib/.
THEBE_VERSION := 0.9.3
THEBE_INTEGRITY := sha512-Rb/7kVhtlffXra3kIe7OuIGE7awsm2/fGWxw21DiNfnWLnUQiDl9AWqYdshPwZPG/5DzLpsJRPix2xtCPtJmQQ==
THEBE_TGZ := node_modules/.thebe/thebe-$(THEBE_VERSION).tgz

$(THEBE_TGZ): node_modules/.installed
	mkdir -p $(@D)
	npm pack thebe@$(THEBE_VERSION) --pack-destination $(@D) --loglevel=error >/dev/null
	test "sha512-$$(openssl dgst -sha512 -binary $@ | base64 -w0)" = "$(THEBE_INTEGRITY)" \
	  || { echo "thebe-$(THEBE_VERSION).tgz: la huella no coincide" >&2; rm -f $@; exit 1; }

# JavaScript y CSS vendorizados: el sitio no pide nada a ningún CDN.
# KaTeX: las fórmulas se dibujan al construir (book/_ext/math_katex.py, con el katex de
# node_modules); el sitio solo lleva su hoja de estilo y las fuentes WOFF2, que todo
# navegador actual lee (se quitan de la hoja las alternativas WOFF y TTF). Cada página
# descarga solo las fuentes que usan sus fórmulas.
KATEX_DIST := node_modules/katex/dist

_assets/vendor/.copied: node_modules/.installed $(THEBE_TGZ)
	rm -rf _assets/vendor
	mkdir -p _assets/vendor/katex/fonts _assets/vendor/thebe
	sed -E 's/,url\(fonts\/[^)]+\.(woff|ttf)\) format\("(woff|truetype)"\)//g' \
	  $(KATEX_DIST)/katex.min.css > _assets/vendor/katex/katex.min.css
	cp $(KATEX_DIST)/fonts/*.woff2 _assets/vendor/katex/fonts/
	tar -xzf $(THEBE_TGZ) -C _assets/vendor/thebe --strip-components=2 \
	  --wildcards 'package/lib/*.js' 'package/lib/thebe.css'
	touch $@

# La marca dice que la instalación terminó, no que el entorno siga entero (un «pip
# uninstall», una versión subida a mano): se comprueba cada vez contra lo fijado
# (tools/check_env.py, ≈ 0,2 s) y, si no coincide, se vuelve a instalar.
deps: $(VENV)/.deps
	@$(PY) tools/check_env.py requirements.txt || { \
	  echo "Se vuelve a instalar lo fijado en requirements.txt."; \
	  rm -f $(VENV)/.deps; $(MAKE) --no-print-directory $(VENV)/.deps; }
test-deps: $(VENV)/.test-deps
	@$(PY) tools/check_env.py requirements-test.txt || { \
	  echo "Se vuelve a instalar lo fijado en requirements-test.txt."; \
	  rm -f $(VENV)/.test-deps; $(MAKE) --no-print-directory $(VENV)/.test-deps; }
vendor: _assets/vendor/.copied

# La caché de ejecución (jupyter-cache) identifica cada notebook solo por sus celdas:
# no sabe que el notebook importa resnorm. Por eso el motor tiene su propia huella
# (tools/engine_hash.py: todos los archivos de resnorm/ y las versiones fijadas de lo
# que carga el núcleo, no las de lo que solo usa Sphinx, como los temas): si no coincide
# con la guardada junto a la caché, se borran la caché, los notebooks ejecutados y el
# entorno de Sphinx, y todo se vuelve a ejecutar. «make -s engine-hash» la imprime.
# EXEC_DIR: dónde queda una ejecución de los notebooks (caché, huella del motor y
# memoria del GPT). La del libro, en _build; «make test» hace otra con los núcleos de
# otra CPU en $(OTHER_CPU_DIR) (ver test-other-cpu), que no toca la del libro.
EXEC_DIR ?= _build
CACHE := $(EXEC_DIR)/.jupyter_cache
ENGINE_STAMP := $(EXEC_DIR)/.engine-hash
# La marca de la última ejecución completa, dentro de la caché (se va con ella): si
# ningún notebook es más nuevo, ni se arranca el ejecutor (≈ 1 s de cada «make book»
# sin cambios). La marca se toma antes de ejecutar: un notebook editado mientras
# tanto queda más nuevo. Si un notebook cambia sin cambiar su fecha, myst-nb no lo
# encuentra en la caché y lo ejecuta él: más lento, nunca viejo.
EXECUTED := $(CACHE)/.notebooks-ejecutados
# La memoria de los entrenamientos del GPT (resnorm.gpt.train_gpt y train_gpts,
# RESNORM_MEMO_DIR): la llena la ejecución de los notebooks y la leen las pruebas
# (tests/helpers.py, GPT_MEMO): el cuaderno del alumno del capítulo 10 en un núcleo
# nuevo no repite sus tandas de entrenamientos (cinco modelos, tres con la tasa alta,
# ocho semillas y los dos bordes de Post-LN: el doble de tasa y doce bloques). Cada entrada lleva la huella del código de resnorm y de torch.
GPT_MEMO := $(EXEC_DIR)/.memo-gpt
BOOK_LOG := _build/book.log
EXEC_LOG := $(EXEC_DIR)/execute.log
# Lo que Sphinx sacó de la ejecución anterior: se borra con la caché si cambia el
# motor (en la ejecución de otra CPU no hay nada de Sphinx que borrar).
EXEC_STALE := $(if $(filter _build,$(EXEC_DIR)),_build/jupyter_execute _build/.doctrees)
ENGINE_HASH = $(shell $(PY) tools/engine_hash.py)
NOTEBOOKS := $(sort $(wildcard notebooks/*.ipynb))
# Los notebooks pendientes los ejecuta jupyter-cache (su orden «jcache», ejecutor
# local-parallel: un proceso por núcleo de CPU), en el orden en que entraron en la
# caché, y los reparte de dos en dos (Pool.map). El 10 tarda más que todos los demás
# juntos: va el primero, para que un núcleo lo ejecute mientras el otro hace el resto.
JCACHE := $(VENV)/bin/jcache
# Los núcleos de los notebooks nacen de un proceso que ya importó ipykernel, NumPy,
# torch, matplotlib y los widgets (tools/nucleos.py: se bifurca uno por notebook; el
# ejecutor lo encuentra por JUPYTER_PATH). Cada núcleo nuevo importaba todo eso otra
# vez: ≈ 3–4 s de CPU por notebook, doce veces. Lo que dice el servidor, aquí:
NUCLEOS_LOG := $(EXEC_DIR)/nucleos.log
# Lo que puede tardar una celda: el «execute: timeout» de _config.yml, el único valor
# (también lo leen conf.py y las pruebas; tests/test_build.py comprueba que es el mismo).
CELL_TIMEOUT := $(shell sed -nE '/^execute:/,/^[^ #]/s/^  timeout: *([0-9]+).*/\1/p' \
  _config.yml)
LONGEST := notebooks/10_gpt_diminuto.ipynb
NOTEBOOKS_BY_COST := $(filter $(LONGEST),$(NOTEBOOKS)) \
  $(filter-out $(LONGEST),$(NOTEBOOKS))
# La construcción estricta: todo aviso es un error (-W), también las referencias
# rotas (-n), y se ven todos antes de fallar (--keep-going). SPHINX_FLAGS sin -W:
# la copia mínima de tests/test_build.py.
SPHINX_FLAGS ?= -W -n --keep-going --quiet

.PHONY: engine-hash book-step check lint
engine-hash:
	@echo $(ENGINE_HASH)

book: deps vendor
	@$(MAKE) --no-print-directory book-step

# El paso del libro, sin instalar nada (lo usa también el banco de medidas):
# 1. si el motor cambió, caché fuera; 2. los notebooks pendientes se ejecutan en
# paralelo (un proceso por núcleo) en la misma caché que lee myst-nb; «jcache» termina
# bien aunque falle un notebook: el fallo se lee en el resumen que escribe al final
# («excepted:» y «errored:», listas vacías si todo fue bien); 3. la construcción
# estricta (sphinx-build, con conf.py), con su registro en $(BOOK_LOG). Si falla, se
# borra el entorno de Sphinx: la siguiente vuelve a leerlo todo y repite los avisos.
.PHONY: execute
execute:
	@hash=$(ENGINE_HASH); \
	if [ "$$(cat $(ENGINE_STAMP) 2>/dev/null)" != "$$hash" ]; then \
	  if [ -e $(ENGINE_STAMP) ]; then \
	    echo "resnorm/ o requirements.txt cambiaron: se vuelven a ejecutar los notebooks"; \
	  fi; \
	  rm -rf $(CACHE) $(GPT_MEMO) $(EXEC_STALE); \
	fi; \
	mkdir -p $(CACHE); echo "$$hash" > $(ENGINE_STAMP)
	@if [ -e $(EXECUTED) ] && [ -z "$$(find $(NOTEBOOKS) -newer $(EXECUTED))" ]; then \
	  exit 0; \
	fi; \
	touch $(EXECUTED).nueva; \
	echo "jcache notebook execute --executor local-parallel …"; \
	nucleos=$$(mktemp -d); \
	$(PY) tools/nucleos.py servir $$nucleos > $(NUCLEOS_LOG) 2>&1 & servidor=$$!; \
	for _ in $$(seq 100); do \
	  [ -e $$nucleos/kernels/python3/kernel.json ] && break; sleep 0.05; \
	done; \
	{ $(JCACHE) notebook -p $(CACHE) add $(NOTEBOOKS_BY_COST) && \
	  JUPYTER_PATH=$$nucleos RESNORM_MEMO_DIR=$(abspath $(GPT_MEMO)) \
	  $(JCACHE) notebook -p $(CACHE) execute --executor local-parallel --no-force \
	    --timeout $(CELL_TIMEOUT) $(NOTEBOOKS); } > $(EXEC_LOG) 2>&1 || true; \
	kill $$servidor 2>/dev/null; wait $$servidor || true; rm -rf $$nucleos; \
	if ! grep -qxF 'excepted: []' $(EXEC_LOG) \
	  || ! grep -qxF 'errored: []' $(EXEC_LOG); then \
	  cat $(EXEC_LOG); echo "Notebooks con error:"; \
	  sed -nE 's/.*(Execution Excepted|Failed [A-Za-z]+): (.*)/  \2/p' $(EXEC_LOG); \
	  exit 1; \
	fi; \
	mv $(EXECUTED).nueva $(EXECUTED); \
	sed -nE 's/.*Execution Successful: .*\/notebooks\//  ejecutado: /p' $(EXEC_LOG)

# La capa del sitio (extensiones, plantillas, conf.py) escribe en la salida archivos
# que Sphinx no vuelve a copiar encima (desde Sphinx 8, un archivo de otra versión se
# queda y avisa: «Aborted attempted copy … the destination path has existing data»,
# un error con -W). Cuando la capa cambia (un «git pull»), la salida se borra y se
# escribe entera; el entorno de Sphinx y la caché de ejecución se quedan. También
# cuando cambia el índice (_toc.yml, al cambiar de rama): Sphinx no borra las páginas
# de los documentos que salieron de él, y se quedarían en el sitio.
SITE_STAMP := _build/.site-hash
SITE_HASH = $(shell { LC_ALL=C find book/_ext book/_templates -type f \
  \( -name '*.py' -o -name '*.html' -o -name '*.po' \) -print0 | LC_ALL=C sort -z \
  | xargs -0 sha256sum; sha256sum conf.py _toc.yml package-lock.json tools/pdf_sphinx.py; \
  } | sha256sum | cut -c1-16)

book-step: execute
	@hash=$(SITE_HASH); \
	if [ "$$(cat $(SITE_STAMP) 2>/dev/null)" != "$$hash" ]; then \
	  rm -rf $(HTML); echo "$$hash" > $(SITE_STAMP); \
	fi
	$(VENV)/bin/sphinx-build -b html . $(HTML) -d _build/.doctrees $(SPHINX_FLAGS) 2>&1 \
	  | tee $(BOOK_LOG) || { rm -f _build/.doctrees/environment.pickle; exit 1; }
	@echo
	@echo "Libro construido en $(HTML)/index.html" | tee -a $(BOOK_LOG)
	@echo "Para verlo: make serve  (sirve $(HTML) en http://127.0.0.1:$(PORT)/)"

# Las pruebas, en tres tandas, y el lint (ruff, como en «make check»):
# 1. Las que no leen el libro ni abren el navegador (UNIT_MARKS: las marcas de
#    tests/conftest.py), en segundo plano, con los notebooks ya ejecutados, mientras se
#    hacen el PDF y el sitio: son un proceso cada uno (≈ 40 s con un núcleo parado).
#    Después, en la misma tanda, las que dependen del redondeo de la CPU otra vez, con
#    los núcleos de otra CPU (test-other-cpu). Su salida queda en $(UNIT_LOG). (Antes,
#    con los notebooks, los dos núcleos ya están llenos; y con «nice», en una máquina
#    ocupada por otros, esperaban sin fin: quien no es root no puede devolverles la
#    prioridad.)
# 2. Con el sitio hecho, mientras ellas acaban, la que reconstruye _build (marca
#    «serial»; las de la primera tanda no leen _build).
# 3. Todas las demás, en varios procesos a la vez (pytest-xdist; cada módulo en un
#    proceso, ver tests/conftest.py), en cuanto acaba la segunda: sin esperar a que
#    acabe la primera (su último proceso dejaba un núcleo parado unos segundos). Su
#    salida se imprime al final.
# Si una tanda falla, las siguientes se ejecutan igual y la orden falla al final.
# Ninguna depende de la velocidad de la máquina: eso es «make bench». Las pruebas del
# navegador pasan casi todo el tiempo esperando a Chromium: con dos núcleos, tres
# procesos los mantienen ocupados (TEST_WORKERS; con cuatro, la tanda tardaba 335 s en
# lugar de 288: los navegadores se quitaban CPU); las que solo calculan van en dos
# (PYTEST_WORKERS).
PYTEST_WORKERS ?= 2
TEST_WORKERS ?= 3
UNIT_MARKS := not browser and not build
UNIT_LOG := _build/pruebas-sin-libro.log
# Con Ctrl-C (o si la orden se para), la primera tanda se para también: va en otra
# sesión (setsid) y la señal del terminal no le llega.
STOP_UNIT := trap 'kill -- -"$$(cat $(UNIT_LOG).pid 2>/dev/null)" 2>/dev/null; \
  exit 130' INT TERM HUP
test: test-setup
	@$(STOP_UNIT); $(PY) tests/install_system_deps.py
	@$(STOP_UNIT); status=0; \
	( set -x; $(VENV)/bin/ruff check . ) || status=1; \
	( set -x; $(PY) -m pytest -m serial --durations=10 ) || status=1; \
	( set -x; $(PY) -m pytest -n $(TEST_WORKERS) -m "not serial and not ($(UNIT_MARKS))" \
	  --durations=30 ) || status=$$?; \
	while [ ! -e $(UNIT_LOG).estado ] && kill -0 "$$(cat $(UNIT_LOG).pid)" 2>/dev/null; \
	do sleep 1; done; \
	echo "+ pruebas sin libro ni navegador, y las «floats» con los núcleos de otra CPU"; \
	echo "  (empezaron antes; salida de $(UNIT_LOG)):"; \
	cat $(UNIT_LOG); \
	[ -e $(UNIT_LOG).estado ] || echo "Las pruebas sin libro no terminaron: se pararon."; \
	[ "$$(cat $(UNIT_LOG).estado 2>/dev/null)" = 0 ] || status=1; \
	python3 tools/publish.py --sellar-pruebas $$status; \
	exit $$status

# La parte de las pruebas que depende del redondeo de la CPU (marca «floats»,
# tests/conftest.py), otra vez con los cálculos en los núcleos de otra CPU x86-64
# (tests/floats.py, other_kernels: torch en ATEN_CPU_CAPABILITY=default, NumPy en su
# base, MKL y oneDNN sin AVX-512): los notebooks se vuelven a ejecutar así en
# $(OTHER_CPU_DIR), sin memoria de entrenamientos heredada, y las pruebas leen esa
# ejecución (RESNORM_EJECUCION). Lo que pasa en una CPU y falla en otra sale aquí, en
# cualquier máquina. La CPU de cada cálculo la dice la salida de pytest y cada fallo.
# (Con la ejecución ya hecha, «execute» no escribe nada y grep, sin líneas que dejar,
# sale con 1: «|| true», y pipefail sigue dando el error de make si lo hay.)
OTHER_CPU_DIR := _build/otra-cpu
.PHONY: test-other-cpu
test-other-cpu: test-deps vendor
	@kernels="$$($(PY) -m tests.floats)"; \
	if [ -z "$$kernels" ]; then \
	  echo "Esta CPU ya calcula con los núcleos más sencillos: no hay otra familia."; \
	  exit 0; \
	fi; \
	echo "+ notebooks y pruebas «floats» con $$kernels"; \
	export $$kernels; \
	$(MAKE) --no-print-directory execute EXEC_DIR=$(OTHER_CPU_DIR) \
	  | { grep -v '^  ejecutado: ' || true; } && \
	RESNORM_EJECUCION=$(OTHER_CPU_DIR) $(PY) -m pytest -n $(PYTEST_WORKERS) -m floats \
	  -k "not executing_twice" -p no:cacheprovider -q

# La primera tanda de «make test», en segundo plano, en su propio grupo de procesos
# (setsid: su número, en $(UNIT_LOG).pid, y «kill -- -número» la para entera, con los
# procesos de pytest-xdist); su código de salida, en $(UNIT_LOG).estado. Necesita el
# motor, las herramientas de prueba y node_modules (PurgeCSS, el corrector), no el
# libro.
.PHONY: unit-tests-bg
unit-tests-bg: test-deps vendor
	@rm -f $(UNIT_LOG).estado
	@setsid bash -c '$(PY) -m pytest -n $(PYTEST_WORKERS) -m "$(UNIT_MARKS)" \
	  -p no:cacheprovider --durations=10 > $(UNIT_LOG) 2>&1; s=$$?; \
	  $(MAKE) --no-print-directory test-other-cpu >> $(UNIT_LOG) 2>&1 || s=1; \
	  echo $$s > $(UNIT_LOG).estado' < /dev/null > /dev/null 2>&1 & \
	echo $$! > $(UNIT_LOG).pid

# El libro y las herramientas de prueba, y a la vez JupyterLab en su propio entorno
# (otra carpeta: no toca .venv ni el libro; instalar espera sobre todo a la red y al
# disco, y la construcción, a la CPU) y los paquetes del sistema (Chromium, los
# diccionarios: apt-get, solo con la biblioteca estándar de Python, así que empieza
# antes de que exista .venv; en una máquina nueva es lo que más espera a la red). Sus
# registros: _build/lab-deps.log y _build/system-deps.log. Los paquetes
# de npm se instalan mientras pip instala los de Python, y las herramientas de prueba
# mientras se ejecutan los notebooks (solo añaden paquetes: ver $(VENV)/.test-deps).
# Después, el PDF del curso y el sitio, ya con el enlace al PDF en la portada (pdf-step:
# necesita el Chromium de las pruebas; el sitio se construye una sola vez), y a la vez,
# en segundo plano, la primera tanda de pruebas (unit-tests-bg). Si algo de esto falla,
# la tanda en segundo plano se para. JupyterLab se instala con menos prioridad (nice):
# solo lo usan las pruebas de la última tanda, y con la misma prioridad le quitaba
# núcleo a la instalación de requirements.txt, que es lo que espera la ejecución de
# los notebooks. Aquí «nice» no deja nada esperando sin fin (como a la primera tanda de
# pruebas, arriba): el «wait» que lo espera llega ≈ 100 s después, y con dos procesos
# ocupados al lado la CI no tardó más que sin él.
.PHONY: test-setup
test-setup:
	@mkdir -p _build; rm -f $(UNIT_LOG).pid $(UNIT_LOG).estado
	@$(STOP_UNIT); \
	nice -n 10 $(MAKE) --no-print-directory lab-deps > _build/lab-deps.log 2>&1 & lab=$$!; \
	python3 tests/install_system_deps.py > _build/system-deps.log 2>&1 & sys=$$!; \
	$(MAKE) --no-print-directory -j3 --output-sync=target test-deps executed; \
	status=$$?; \
	if ! wait $$sys; then \
	  echo "Falló la instalación de los paquetes del sistema (_build/system-deps.log):"; \
	  tail -30 _build/system-deps.log; status=1; \
	fi; \
	if [ $$status -eq 0 ]; then $(MAKE) --no-print-directory unit-tests-bg \
	  && $(MAKE) --no-print-directory pdf-step; status=$$?; fi; \
	if ! wait $$lab; then \
	  echo "Falló la instalación de JupyterLab (_build/lab-deps.log):"; \
	  tail -30 _build/lab-deps.log; status=1; \
	fi; \
	if [ $$status -ne 0 ] && [ -e $(UNIT_LOG).pid ]; then \
	  kill -- -"$$(cat $(UNIT_LOG).pid)" 2>/dev/null || true; \
	fi; \
	exit $$status

# Una foto de cada página entera, en cada ancho (y en oscuro en el portátil), en
# _build/screenshots/<ancho>-<modo>/, para mirarlas: las mismas cargas que las pruebas
# de tests/test_site_view.py, que en «make test» no fotografían (una foto no es una
# propiedad que se pueda comprobar).
.PHONY: fotos
fotos: book test-deps
	$(PY) tests/install_system_deps.py
	RESNORM_FOTOS=1 $(PY) -m pytest -n $(TEST_WORKERS) -q tests/test_site_view.py \
	  -k test_every_page_loads_offline_without_errors_and_is_photographed_on_request

# El bucle de trabajo: pruebas de unidades y propiedades y lint, sin navegador, sin
# construir el libro y sin ejecutar notebooks (menos de un minuto).
# (node_modules: el diccionario inglés del corrector ortográfico.)
check: test-deps node_modules/.installed
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -q -m "not browser and not build and not slow" -p no:cacheprovider \
	  -n $(PYTEST_WORKERS)

# Un capítulo nuevo, en borrador: el notebook, su línea en _toc.yml y en las tablas de
# capítulos, su sección de valores esperados, sus comprobadores y sus preguntas
# (vacíos) y su archivo de soluciones (tools/capitulo.py; README.md, «Añadir un
# capítulo»). «make capitulo NN=13 NOMBRE=atencion [TITULO="La atención"]».
.PHONY: capitulo
capitulo: deps
	@test -n "$(NN)" -a -n "$(NOMBRE)" || { \
	  echo 'Uso: make capitulo NN=13 NOMBRE=atencion [TITULO="La atención"]'; exit 2; }
	$(PY) tools/capitulo.py "$(NN)" "$(NOMBRE)" --titulo "$(TITULO)"

lint: test-deps
	$(VENV)/bin/ruff check .

# El curso entero en un PDF (_build/pdf/residual-y-layernorm.pdf; tools/pdf.py): la
# misma configuración en una sola página (Sphinx, constructor singlehtml, con los
# notebooks ya ejecutados de la caché: no ejecuta nada), impresa con el Chromium de
# las pruebas. Después se construye el sitio: la portada enlaza el PDF (solo cuando
# existe; tools/pdf_sphinx.py lo copia a $(HTML)).
# Si nada de lo que produce el PDF cambió desde la última impresión (la huella de
# tools/pdf_inputs.py: los archivos del repositorio que lee la construcción, las
# salidas de los notebooks, el navegador y las fuentes) y el PDF es el que salió de
# ella, no se vuelve a imprimir (≈ 45 s de una segunda «make test»). Para imprimirlo
# igual: rm _build/pdf/.huella-entradas.
.PHONY: pdf pdf-step executed
pdf: executed test-deps
	$(PY) tests/install_system_deps.py
	@$(MAKE) --no-print-directory pdf-step

# Los notebooks ejecutados, sin construir el sitio: lo que necesita la página única.
executed: deps vendor
	@$(MAKE) --no-print-directory execute

pdf-step: execute
	@if huella="$$($(PY) tools/pdf_inputs.py --check)"; then exit 0; fi; \
	$(PY) tools/pdf_inputs.py --write ""; \
	echo "$(PY) tools/pdf.py"; $(PY) tools/pdf.py; \
	$(PY) tools/pdf_inputs.py --write "$$huella"
	@$(MAKE) --no-print-directory book-step

# Publica el sitio en la rama gh-pages y los cuadernos del alumno en la rama de los
# cuadernos de REMOTE (tools/publish.py): solo un árbol sin cambios, cuya construcción
# y cuyas pruebas («make test», que lo anota al terminar) son de HEAD. No construye
# ni prueba: lo comprueba, y se niega si algo no es de HEAD.
REMOTE ?= origin
.PHONY: publish
publish:
	python3 tools/publish.py --remoto $(REMOTE)

serve:
	$(PY) -m http.server $(PORT) --bind 127.0.0.1 --directory $(HTML)

# Lo que depende de la velocidad de la máquina (Lighthouse, cuándo aparece un widget,
# tiempos de construcción y de cálculo), contra su presupuesto: falla si alguna cifra
# no lo cumple (bench/__main__.py). Mide el sitio de _build/html y, en una copia
# temporal, tres construcciones en frío.
bench: deps vendor test-deps
	$(PY) -m bench

# Lo que se reconstruye; nunca $(LAB_DIR), el trabajo de quien aprende.
clean:
	rm -rf _build _assets/vendor
