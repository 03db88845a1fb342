"""Plausible bugs in the chain checkpoints (src/ffi/checkpoint.rs, src/wire.rs:
`sgs_*_export` / `sgs_*_import`), each with the tests (tests/checkpoint.rs, through the C
functions) that must catch it: exact resumption in every warm-up phase, and the refusals."""

C = "src/ffi/checkpoint.rs"
W = "src/wire.rs"
CK = ["checkpoint"]

MUTANTS = [
    dict(name="checkpoint_checksum_skipped", bug="a corrupted checkpoint imported (checksum not compared)",
         file=C, old="    if checksum(body).to_le_bytes() != sum {",
         new="    if false && checksum(body).to_le_bytes() != sum {", tests=CK, features="std,ffi"),
    dict(name="checkpoint_option_dropped", bug="an optional part (the warm-up, its windows) read but not restored",
         file=W, old="            Some(T::get(r)?)\n        } else {",
         new="            T::get(r).map(|_| None)?\n        } else {",
         tests=CK, features="std,ffi"),
    dict(name="checkpoint_position_only", bug="only the position of the workspace restored (momentum, mass lost)",
         file=C, old="    for v in used.iter_mut() {",
         new="    for v in used.iter_mut().take(d) {", tests=CK, features="std,ffi"),
    dict(name="checkpoint_config_unchecked", bug="a checkpoint's configuration not validated as init would",
         file=C, old="        || C::validate_config::<T>(core.config()).is_err()\n",
         new="", tests=CK, features="std,ffi"),
]
