"""The tokenizer files read beside config.json, by name.

Kept apart from cfglint.stops so that a check can tell from a directory listing whether the stop-token
analysis applies before importing it (most configs are checked without tokenizer files), and whether
llama.cpp's converter reads its vocabulary without the config (knowledge.llama_cpp.VOCAB_READS_CONFIG).
"""

TOKENIZER_CONFIG = "tokenizer_config.json"
SPECIAL_TOKENS_MAP = "special_tokens_map.json"
TOKENIZER = "tokenizer.json"
TEMPLATE_FILE = "chat_template.jinja"
TEMPLATE_JSON = "chat_template.json"
NAMES = (TOKENIZER_CONFIG, SPECIAL_TOKENS_MAP, TOKENIZER, TEMPLATE_FILE, TEMPLATE_JSON)
SENTENCEPIECE = "tokenizer.model"
TEKKEN = "tekken.json"  # Mistral's own tokenizer
# The files beside config.json the converter's vocabulary routes look for (cfglint.memo keeps readings apart by them).
VOCABULARY_FILES = frozenset({SENTENCEPIECE, TEKKEN, TOKENIZER})
