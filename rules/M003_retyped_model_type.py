"""model_type names the family transformers built from another one, which only transformers loads.

## What it does
Reports a `model_type` that transformers writes for a family its AutoConfig builds from another
model_type: `"ministral"`, what a model loaded from a `"mistral"` file holding `layer_types` is saved as
(transformers 4.57 and 5 alike), and names the runtimes that load the file under the model_type it came
from but have no loader for this one.

## Why it matters
mlx-lm picks its module by model_type and has no `ministral` one; llama.cpp's converter registers no
MinistralForCausalLM; mistral.rs and candle have no Ministral loader. The same keys under `"mistral"`
load in all of them (mlx-lm applies the layer types; the others slide every layer or none, which A005
reports), and transformers still builds a Ministral from them.

## Example
```json
{"model_type": "ministral", "architectures": ["MinistralForCausalLM"], "layer_types": ["sliding_attention", "full_attention"]}
```

## Fix safety
Safe: writes the model_type the file came from (and its model class in `architectures`), keeping
`layer_types` (written out where absent): AutoConfig builds the file as the same Ministral from it, so
what transformers 4.57 and 5 read does not change.
"""

from cfglint import knowledge
from cfglint.diagnostics import Applicability, Edit, Effect, Finding, Fix
from cfglint.knowledge.transformers5 import CAUSAL_LM, RETYPED

CODE = "M003"
NAME = "retyped-model-type"
SEVERITY = "error"
# Its findings depend only on the intent, the readings and these keys of the config (cfglint.memo).
CONFIG_KEYS = ("model_type", "architectures", "layer_types")
# built family -> (the model_type it is built from, the key that makes AutoConfig build it)
_BUILT_FROM = {built: (named, key) for named, (built, key) in RETYPED.items()}


def check(ctx):
    intent = ctx.intent
    if intent is None or intent.root or intent.family not in _BUILT_FROM or intent.model_type != intent.family:
        return
    named, key = _BUILT_FROM[intent.family]
    lacking = [(n, v) for n, v in ctx.views.items() if v.outcome == "not-applicable" and knowledge.entry(n, named) is not None]
    if not lacking:
        return
    edits = [Edit("set", ctx.at("model_type"), named)]
    architectures = ctx.config.get("architectures")
    for i, name in enumerate(architectures if isinstance(architectures, list) else ()):
        if name == CAUSAL_LM[intent.family]:
            edits.append(Edit("set", f"{ctx.at('architectures')}/{i}", CAUSAL_LM[named]))
    if key not in ctx.config:
        edits.append(Edit("set", ctx.at(key), intent.values[key]))  # without it AutoConfig would build the other family
    effects = tuple(Effect(n, "error", None, v.message or "") for n, v in lacking)
    fix = Fix(f'write model_type "{named}", which transformers builds as {intent.family} from {key}', Applicability.SAFE, tuple(edits))
    names = [n for n, _ in lacking]
    listed = ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else names[0]
    yield Finding(f'model_type "{intent.family}" is what transformers saves a model built from a "{named}" file with {key} as: '
                  f'{listed} have no {intent.family} loader, and load the same file as "{named}"', ctx.at("model_type"), effects, fix)
