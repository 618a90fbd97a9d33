"""wheel_variant_metadata: the PEP 825 variant metadata of the provider wheels wheel_split_build wrote,
read back and checked against PEP 825's JSON schema and the rules its text adds.

    check_variants.py --schema pep825/variant-schema-0.1.1.json --expect cc8=80_real --expect cc9=90_real
                      DIR...

The schema is PEP 825's own, vendored: peps/pep-0825/variant-schema-0.1.1.json of
https://github.com/python/peps (commit 8605833b97fc60f3f11c8d8fb7160a34eb095247), published as
https://peps.python.org/pep-0825/#appendix (its $id: https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json).
What the schema cannot say, from the PEP's text, is checked here too:
  - `$schema` is the schema's URL, which carries the format's version (0.1.1);
  - `variants` has exactly one entry in a wheel, its key the wheel's variant label: the file name's
    last component where the name has one (`...-py3-none-any-cc9.whl`, PEP 825's filename template;
    the python tag must not start with a digit, which tells a label from a build tag), and
    `cc<major>` of the provider's distribution name either way;
  - every namespace used is in `default-priorities.namespace` (here the one, `nvidia`);
  - the properties are `nvidia :: sm_arch :: <value>` with the values --expect gives for the label.
Each rule is also shown to refuse a broken copy of a real variant.json (the error cases below), so a
check that passes everything would fail the test.
"""
import argparse
import copy
import json
import re
import sys
import zipfile
from pathlib import Path

import jsonschema

from wheel_support import fail, show

# PEP 825's filename template: {distribution}-{version}(-{build tag})?-{python}-{abi}-{platform}(-{label})?.whl
LABEL = re.compile(r"^[0-9a-z_.]+$")


def label_of(name):
    """The variant label of a wheel file name, or None for a non-variant wheel."""
    parts = name.removesuffix(".whl").split("-")
    if len(parts) == 6 and not parts[2][0].isdigit():  # no build tag: the sixth part is a label
        return parts[5]
    if len(parts) == 7:
        return parts[6]
    return None


def problems(data, validator, label_in_name, expected_label, expected_values):
    """What is wrong with one wheel's variant.json, as a list of sentences (empty: nothing)."""
    found = [f"schema: {error.message} (at {'/'.join(map(str, error.absolute_path)) or 'top'})"
             for error in validator.iter_errors(data)]
    if found:
        return found
    if data["$schema"] != validator.schema["$id"]:
        found.append(f"$schema is {data['$schema']}, not PEP 825's {validator.schema['$id']}")
    variants = data["variants"]
    if len(variants) != 1:
        return found + [f"a wheel's variants must have one entry, its own label; it has {sorted(variants)}"]
    (label, properties), = variants.items()
    if label_in_name is not None and label != label_in_name:
        found.append(f"its label is {label}, the file name's is {label_in_name}")
    if label != expected_label:
        found.append(f"its label is {label}, expected {expected_label} (the provider's architecture family)")
    unlisted = sorted(set(properties) - set(data["default-priorities"]["namespace"]))
    if unlisted:
        found.append(f"namespaces {unlisted} are not in default-priorities.namespace")
    if properties != {"nvidia": {"sm_arch": expected_values}}:
        found.append(f"its properties are {properties}, expected nvidia :: sm_arch :: {expected_values}")
    return found


def check_wheel(wheel, validator, expect):
    match = re.match(r"kiln_example_wheel_(cc[0-9]+)-", wheel.name)
    if not match or match[1] not in expect:
        fail(f"{wheel.name} is not a provider wheel of a family given with --expect ({sorted(expect)})")
    label_in_name = label_of(wheel.name)
    if label_in_name is not None and not LABEL.match(label_in_name):
        fail(f"{wheel.name}: its variant label '{label_in_name}' is not ^[0-9a-z_.]+$")
    with zipfile.ZipFile(wheel) as archive:
        data = json.loads(archive.read(f"{wheel.name.split('-')[0]}-0.1.0.dist-info/variant.json"))
    show(f"{wheel.name}: variant.json", json.dumps(data, indent=2))
    found = problems(data, validator, label_in_name, match[1], expect[match[1]])
    if found:
        fail(f"{wheel.name}: " + "; ".join(found))
    return data, label_in_name, match[1]


def check_refusals(data, validator, label, expect):
    """Broken copies of a good variant.json, each refused by the rule named."""
    def broken(change):
        copied = copy.deepcopy(data)
        change(copied)
        return copied
    values = expect[label]
    cases = {
        "no default-priorities (schema: required)": broken(lambda d: d.pop("default-priorities")),
        "an upper-case value, 90A_real (schema: value pattern)":
            broken(lambda d: d["variants"][label]["nvidia"].update(sm_arch=["90A_real"])),
        "an empty sm_arch list (schema: minItems)": broken(lambda d: d["variants"][label]["nvidia"].update(sm_arch=[])),
        "another schema version ($schema)":
            broken(lambda d: d.update({"$schema": validator.schema["$id"].replace("0.1.1", "0.0.9")})),
        "two labels in one wheel (variants: one entry)": broken(lambda d: d["variants"].update(null={})),
        "another label than the file name's": broken(lambda d: d.update(variants={"cc99": d["variants"][label]})),
        "a namespace missing from default-priorities":
            broken(lambda d: d["default-priorities"].update(namespace=["x86_64"])),
        "other sm_arch values than the family's cubins":
            broken(lambda d: d["variants"][label]["nvidia"].update(sm_arch=sorted(values + ["75_real"]))),
    }
    lines = []
    for case, bad in cases.items():
        found = problems(bad, validator, label, label, values)
        if not found:
            fail(f"a variant.json with {case} was not refused")
        lines.append(f"{case}: refused ({found[0]})")
    show("error cases", "\n".join(lines))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--schema", type=Path, required=True)
    parser.add_argument("--expect", action="append", required=True, help="cc9=90_real[,90a_real...]")
    parser.add_argument("dirs", type=Path, nargs="+")
    args = parser.parse_args()
    expect = {label: values.split(",") for label, values in (item.split("=", 1) for item in args.expect)}
    schema = json.loads(args.schema.read_text())
    validator = jsonschema.Draft202012Validator(schema)
    validator.check_schema(schema)

    checked, labelled = 0, 0
    for directory in args.dirs:
        wheels = sorted(directory.glob("kiln_example_wheel_cc*.whl"))
        if sorted(re.match(r"kiln_example_wheel_(cc[0-9]+)", w.name)[1] for w in wheels) != sorted(expect):
            fail(f"{directory} holds {[w.name for w in wheels]}: expected one provider wheel per family "
                 f"{sorted(expect)}")
        for wheel in wheels:
            data, label_in_name, label = check_wheel(wheel, validator, expect)
            checked += 1
            labelled += label_in_name is not None
    if labelled == 0:
        fail("no wheel had a variant label in its file name (give the --variant-names directory)")
    check_refusals(data, validator, label, expect)
    print(f"variant metadata of {checked} provider wheels valid, {labelled} of them with PEP 825 file names")


if __name__ == "__main__":
    sys.exit(main())
