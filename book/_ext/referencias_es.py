"""Las citas y la lista de referencias, en autor y año y en español.

Autor y año, con una letra si dos obras comparten los dos: «He et al., 2016a» y
«2016b», en el texto y en la lista de referencias. sphinxcontrib-bibtex no desambigua
el año por su cuenta; lo hace con los complementos que documenta (``register_plugin``,
de pybtex y de sphinxcontrib-bibtex): una etiqueta de pybtex con la letra, como la de
su estilo «alpha», y el estilo «author_year» con el año tomado de esa etiqueta.

Y en español: «Ba, Kiros y Hinton», no «Ba, Kiros, and Hinton». pybtex escribe «and»
en tres sitios, y cada uno se configura donde su documentación lo deja: la etiqueta
(``BaseLabelStyle.format_labels``), la lista de autores de la lista de referencias
(``format_names`` del estilo de formato, una plantilla ``names``) y los autores de la
cita en el texto (``PersonStyle`` de sphinxcontrib-bibtex, sus separadores ``sep2`` y
``last_sep``). El «and others» de BibTeX (una lista de autores cortada) se lee «y
otros»: un estilo de nombres de pybtex (``pybtex.style.names``). «et al.» se queda: es
como se escribe también en español. Lo demás que escriben las plantillas de pybtex
(«In», «Technical Report») sigue en inglés, como los títulos.

conf.py elige los estilos por su nombre (``bibtex_default_style`` y
``bibtex_reference_style``, «autor_anio»).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import pybtex.plugin
from pybtex.richtext import Text
from pybtex.style.formatting.alpha import Style as Alpha
from pybtex.style.labels import BaseLabelStyle
from pybtex.style.names.plain import NameStyle
from pybtex.style.template import join, names, node, sentence
from sphinxcontrib.bibtex.plugin import register_plugin
from sphinxcontrib.bibtex.style.referencing import PersonStyle
from sphinxcontrib.bibtex.style.referencing import author_year as ay
from sphinxcontrib.bibtex.style.referencing import basic_author_year as basic
from sphinxcontrib.bibtex.style.template import join2, post_text, pre_text, reference

NOMBRE = "autor_anio"
#: Entre dos autores, y antes del último de tres o más: «A y B», «A, B y C» (sin la
#: coma de «, and»: en español no va coma delante de «y»).
Y = " y "


class EtiquetaAutorAño(BaseLabelStyle):
    """«Apellido, año», «A y B, año» o «A et al., año»; una letra si se repite."""

    def format_labels(self, sorted_entries):
        labels = []
        for entry in sorted_entries:
            people = [" ".join(p.last_names).replace("{", "").replace("}", "")
                      for p in entry.persons.get("author", [])]
            who = (people[0] if len(people) == 1 else Y.join(people)
                   if len(people) == 2 else f"{people[0]} et al.")
            labels.append(f"{who}, {entry.fields['year']}")
        seen, repeated = Counter(), Counter(labels)
        for label in labels:
            letter = chr(ord("a") + seen[label]) if repeated[label] > 1 else ""
            seen[label] += 1
            yield label + letter


class NombresEs(NameStyle):
    """Nombre y apellidos, como el estilo «plain» de pybtex; «others» es «otros»."""

    def format(self, person, abbr=False):
        if str(person) == "others":
            return Text("otros")
        return super().format(person, abbr)


class EstiloAutorAño(Alpha):
    default_label_style = EtiquetaAutorAño
    default_name_style = "nombres_es"

    def format_names(self, role, as_sentence=True):
        """Los autores de una obra de la lista, unidos con «y» (pybtex: «, and»)."""
        formatted = names(role, sep=", ", sep2=Y, last_sep=Y)
        return sentence[formatted] if as_sentence else formatted


@node
def year(children, data):
    """El año de la etiqueta, con su letra: lo que sigue a la última coma."""
    return Text(data["formatted_entry"].label.rpartition(", ")[2])


@dataclass
class Parentetica(basic.BasicAuthorYearParentheticalReferenceStyle):
    def inner(self, role_name):
        author = self.person.author_or_editor_or_title(full="s" in role_name)
        return join2(sep1=self.pre_text_sep, sep2=self.post_text_sep)[
            pre_text, reference[join(sep=self.author_year_sep)[author, year]],
            post_text]


@dataclass
class Textual(basic.BasicAuthorYearTextualReferenceStyle):
    def inner(self, role_name):
        author = self.person.author_or_editor_or_title(full="s" in role_name)
        return join(sep=self.text_reference_sep)[author, join[
            self.bracket.left,
            join2(sep1=self.pre_text_sep, sep2=self.post_text_sep)[
                pre_text, reference[year], post_text],
            self.bracket.right]]


@dataclass
class CitaAutorAño(ay.AuthorYearReferenceStyle):
    """El estilo «author_year» con las dos anteriores; su ``person`` (los separadores
    en español) llega a todos sus estilos, también al de solo el autor."""

    person: PersonStyle = field(
        default_factory=lambda: PersonStyle(sep2=Y, last_sep=Y))

    def __post_init__(self):
        super().__post_init__()
        ours = {basic.BasicAuthorYearParentheticalReferenceStyle: Parentetica,
                basic.BasicAuthorYearTextualReferenceStyle: Textual}
        self.styles[:] = [
            ours[type(s)](**{f: getattr(s, f) for f in s.__dataclass_fields__})
            if type(s) in ours else s for s in self.styles]
        self.role_style.update(
            (role, s) for s in self.styles for role in s.role_names())


def setup(app):
    pybtex.plugin.register_plugin("pybtex.style.names", "nombres_es", NombresEs)
    pybtex.plugin.register_plugin("pybtex.style.formatting", NOMBRE, EstiloAutorAño)
    register_plugin("sphinxcontrib.bibtex.style.referencing", NOMBRE, CitaAutorAño)
    # sphinxcontrib-bibtex pide a pybtex el «backend» de texto plano en cada cita que
    # resuelve, y pybtex recorre cada vez los «entry points» de todos los paquetes
    # instalados: ≈ 5 ms de CPU por cita medidos aquí, y una construcción en frío
    # resuelve unas 140 (más 75 al escribir los cuadernos del alumno). Registrado en
    # tiempo de ejecución (su register_plugin), lo encuentra sin buscar: la misma
    # clase que da el «entry point».
    texto_plano = pybtex.plugin.find_plugin("pybtex.backends", "plaintext")
    pybtex.plugin.register_plugin("pybtex.backends", "plaintext", texto_plano,
                                  force=True)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
