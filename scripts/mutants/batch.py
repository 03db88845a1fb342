"""Plausible bugs in the batch engine (src/ffi/batch.rs: `sgs_*_run_batch`), each with the
tests (tests/run_batch.rs, through the C functions) that must catch it: bit identity with
separate runs, aborts, the replay's own check, bad inputs; and in the cut of AMAGOLD's steps
(src/amagold/resume.rs, src/suspend.rs)."""

B = "src/ffi/batch.rs"
R = "src/amagold/resume.rs"
SU = "src/suspend.rs"
RB = ["run_batch"]

MUTANTS = [
    dict(name="batch_replay_point_unchecked", bug="a replayed call's point not compared with the cached one",
         file=B, old="                && point.len() == x.len()\n                && point.iter().zip(x).all(|(w, v)| *w == v.to_word());",
         new="                && point.len() == x.len();", tests=RB, features="std,ffi"),
    dict(name="batch_row_status_dropped", bug="a row's REJECT not stored with its answer",
         file=B, old="*m = kind | (u64::from(st as u32) << 32);", new="*m = kind;",
         tests=RB, features="std,ffi"),
    # A replayed chain answered from a stale cache entry (state not checked) used to be caught
    # by AMAGOLD's replayed steps, whose caches held the energy entries of earlier iterations.
    # Since AMAGOLD's trajectories are cut, only the warm-up's approach steps are replayed with
    # energies, and no test makes their cache hold a stale energy entry where the bug would read
    # it; the mutant checks the same guard on the cut path: a suspended step's request answered by
    # the other kind's call.
    dict(name="batch_stale_request_answered", bug="a suspended step answered by the other kind's batched call",
         file=B, old="                if waiting != kind {\n                    continue;\n                }",
         new="", tests=RB, features="std,ffi"),
    dict(name="batch_cache_kept_across_iterations", bug="the answer count not reset at a new iteration",
         file=B, old="*hdr = [0, RUNNING];", new="*hdr = [hdr[0], RUNNING];",
         tests=RB, features="std,ffi"),
    dict(name="batch_rows_iteration_major", bug="rows written iteration-major instead of chain-major",
         file=B, old="let at = c.wrapping_mul(n).wrapping_add(i).wrapping_mul(d);",
         new="let at = i.wrapping_mul(k).wrapping_add(c).wrapping_mul(d);",
         tests=RB, features="std,ffi"),
    dict(name="batch_infos_iteration_major", bug="info records written iteration-major instead of chain-major",
         file=B, old="nth(infos, c.wrapping_mul(n).wrapping_add(i)),",
         new="nth(infos, i.wrapping_mul(k).wrapping_add(c)),",
         tests=RB, features="std,ffi"),
    dict(name="batch_infos_overlap_unchecked", bug="the info records not checked against the other buffers",
         file=B, old="        Span::of(infos, kn),\n", new="",
         tests=RB, features="std,ffi"),
    dict(name="batch_summary_not_recorded", bug="a completed step not counted in its chain's summary",
         file=B, old="v.record(info.outcome(), C::info_to_c(info));", new="let _ = &info;",
         tests=RB, features="std,ffi"),
    dict(name="batch_return_value_ignored", bug="a whole-batch ABORT taken for answers (NaN rows)",
         file=B, old="        if r != SGS_CB_OK\n            || statuses", new="        if false\n            || statuses",
         tests=RB, features="std,ffi"),
    dict(name="batch_fallback_chain_index", bug="a one-row fallback call names chain 0",
         file=B, old="direct: Direct { chain: c, ..direct },", new="direct: Direct { chain: 0, ..direct },",
         tests=RB, features="std,ffi"),
    dict(name="batch_workspace_overlap_unchecked", bug="a workspace inside the scratch or output accepted",
         file=B, old="if fixed.iter().any(|s| Span::overlaps(s, &ws)) {", new="if false {",
         tests=RB, features="std,ffi"),
    dict(name="batch_cut_generator_advanced", bug="a cut step leaves its draws in the chain's generator between callbacks",
         file=R, old="                s.running = self.rng.checkpoint();\n                self.rng.restore(saved);\n                Ok(ask)",
         new="                s.running = self.rng.checkpoint();\n                Ok(ask)",
         tests=RB, features="std,ffi"),
    dict(name="batch_cut_check_skipped", bug="a cut step's position used without its check word",
         file=SU, old="if chk != check(&[ts, rho, lo, hi, waiting, seed]) {", new="if false {",
         tests=RB, features="std,ffi"),
    dict(name="batch_cut_rho_restarted", bug="ρ restarted at each resumption",
         file=R, old="s.rho += match &mut f {", new="s.rho = match &mut f {",
         tests=RB, features="std,ffi"),
    dict(name="batch_cut_asks_at_theta", bug="a cut step's request made at θ instead of the proposal",
         file=R, old="ws.get(d..d.saturating_mul(2)).unwrap_or(&[])", new="ws.get(..d).unwrap_or(&[])",
         tests=RB, features="std,ffi"),
]
