# GENERATED from include/sgsample.h by gen/generate.py -- do not edit.
# Layouts follow C's rules; Julia isbits structs use the same ones.

# Constants (#define)
const SGS_VERSION_STRING = "0.7.0"
const SGS_CB_OK = 0
const SGS_CB_REJECT = 1
const SGS_CB_ABORT = 2
const SGS_VERSION_MAJOR = 0
const SGS_VERSION_MINOR = 7
const SGS_VERSION_PATCH = 0
const SGS_PERMUTATION_SHUFFLE = 0
const SGS_PERMUTATION_FEISTEL = 1
const SGS_ANNEAL_OFF = 0
const SGS_ANNEAL_CYCLICAL = 1
const SGS_ANNEAL_HYPERBOLIC = 2
const TunamhConfig_DEFAULT_CHI = 1.0
const SGS_VARIANT_REVERSIBLE = 0
const SGS_VARIANT_NON_REVERSIBLE = 1
const SGS_MASS_UNIT = 0
const SGS_MASS_DIAGONAL = 1
const SGS_MASS_DENSE = 2
const SGS_OUTCOME_ACCEPTED = 0
const SGS_OUTCOME_REJECTED = 1
const SGS_OUTCOME_OUT_OF_DOMAIN = 2
const SGS_OUTCOME_DIVERGENT = 3
const SGS_SCHEDULE_DOUBLING = 0
const SGS_SCHEDULE_KSD = 1
const SGS_BATCHING_WITHOUT_REPLACEMENT = 0
const SGS_BATCHING_WITH_REPLACEMENT = 1
const SGS_KERNEL_GAUSSIAN = 0
const SGS_KERNEL_GAUSSIAN_MEDIAN = 1
const SGS_KERNEL_IMQ = 2
const SGS_STEP_RULE_CONSTANT = 0
const SGS_STEP_RULE_DECAYING = 1
const SGS_STEP_RULE_ADAGRAD = 2
const SGS_SCALE_NONE = 0
const SGS_SCALE_PARTICLES = 1
const SGS_SCALE_FIXED = 2
const SGS_PHASE_SAMPLING = 0
const SGS_PHASE_APPROACH = 1
const SGS_PHASE_FAST = 2
const SGS_PHASE_SLOW = 3
const SGS_PHASE_FINAL = 4
const SGS_WARMUP_NONE = 0
const SGS_WARMUP_RUNNING = 1
const SGS_WARMUP_OK = 2
const SGS_WARMUP_SUSPECT = 3
const SGS_WARMUP_REASON_ENERGY_TREND = 1
const SGS_WARMUP_REASON_ACCEPTANCE = 2
const SGS_WARMUP_REASON_DIVERGENCES = 4
const SGS_WARMUP_REASON_LOW_BFMI = 8
const SGS_WARMUP_REASON_CHAINS_DISAGREE = 32
const SGS_WARMUP_REASON_METRIC = 64
const SGS_DRAWS_RHAT_MAX = 1.01
const SGS_DRAWS_ESS_PER_CHAIN = 100
const SGS_DRAWS_MIN_DRAWS = 4
const SGS_DRAWS_SUSPECT_RHAT = 1
const SGS_DRAWS_SUSPECT_ESS_BULK = 2
const SGS_DRAWS_SUSPECT_ESS_TAIL = 4
const SGS_DRAWS_SUSPECT_DIVERGENCES = 8
const SGS_DRAWS_SUSPECT_NOT_COMPUTABLE = 16
const SGS_STATS_LAGS = 128
const SGS_STATS_ESS_BEYOND_WINDOW = 1
const SGS_STATS_ESS_SHORT_CHAIN = 2
const SGS_STATS_ESS_CONSTANT = 4
const SGS_KSD_OFF = 0
const SGS_KSD_BATCH = 1
const SGS_KSD_FULL = 2

# Scalar typedefs (as C99 sees them) and enum members
const sgs_status = Int32
const SGS_OK = Int32(0)
const SGS_ERR_NULL_POINTER = Int32(1)
const SGS_ERR_ZERO_DIMENSION = Int32(2)
const SGS_ERR_WORKSPACE_TOO_SMALL = Int32(3)
const SGS_ERR_LENGTH_MISMATCH = Int32(4)
const SGS_ERR_INVALID_STEP_SIZE = Int32(5)
const SGS_ERR_INVALID_FRICTION = Int32(6)
const SGS_ERR_INVALID_MOMENTUM_SCALE = Int32(7)
const SGS_ERR_INVALID_STEPS = Int32(8)
const SGS_ERR_INVALID_POSITION = Int32(9)
const SGS_ERR_INITIAL_ENERGY_REJECTED = Int32(10)
const SGS_ERR_CALLBACK_ABORTED = Int32(11)
const SGS_ERR_INVALID_TARGET_ACCEPTANCE = Int32(12)
const SGS_ERR_INVALID_BATCH_SIZE = Int32(13)
const SGS_ERR_INVALID_BANDWIDTH = Int32(14)
const SGS_ERR_ZERO_PARTICLES = Int32(15)
const SGS_ERR_INVALID_STEP_RULE = Int32(16)
const SGS_ERR_OUTPUT_TOO_SMALL = Int32(17)
const SGS_ERR_INVALID_KERNEL = Int32(18)
const SGS_ERR_INVALID_OPTION = Int32(19)
const SGS_ERR_INVALID_MINIBATCH = Int32(20)
const SGS_ERR_NOT_INITIALISED = Int32(21)
const SGS_ERR_NON_FINITE = Int32(22)
const SGS_ERR_INVALID_ARGUMENT = Int32(23)
const SGS_ERR_GRADIENT_REJECTED = Int32(24)
const SGS_ERR_STATE_CORRUPTED = Int32(25)
const SGS_ERR_STATE_MOVED = Int32(26)
const SGS_ERR_BUSY = Int32(27)
const SGS_ERR_ITERATION_NOT_BEGUN = Int32(28)
const SGS_ERR_ITERATION_IN_PROGRESS = Int32(29)
const SGS_ERR_INVALID_RANGE = Int32(30)
const SGS_ERR_RANGE_OUT_OF_BOUNDS = Int32(31)
const SGS_ERR_RANGE_OVERLAP = Int32(32)
const SGS_ERR_GRADIENTS_NOT_READY = Int32(33)
const SGS_ERR_ITERATION_INCOMPLETE = Int32(34)
const SGS_ERR_INVALID_WARMUP = Int32(35)
const SGS_ERR_NON_FINITE_DRAWS = Int32(36)
const SGS_ERR_TOO_FEW_DRAWS = Int32(37)
const SGS_ERR_INVALID_MASS = Int32(38)
const SGS_ERR_MASS_MISMATCH = Int32(39)
const SGS_ERR_INVALID_CHECKPOINT = Int32(40)
const SGS_ERR_CHECKPOINT_MISMATCH = Int32(41)
const SGS_ERR_BOUND_EXCEEDED = Int32(42)
const SGS_ERR_INVALID_BOUND = Int32(43)

# Callback types: C function pointers (make them with @cfunction)
const sgs_energy_fn = Ptr{Cvoid}  # Int32 (*)(Ptr{Cvoid}, Ptr{Cdouble}, Csize_t, Ptr{Cdouble})
const sgs_gradient_fn = Ptr{Cvoid}  # Int32 (*)(Ptr{Cvoid}, Ptr{Cdouble}, Csize_t, UInt64, Ptr{Cdouble})
const sgs_energy_fn_f32 = Ptr{Cvoid}  # Int32 (*)(Ptr{Cvoid}, Ptr{Cfloat}, Csize_t, Ptr{Cdouble})
const sgs_gradient_fn_f32 = Ptr{Cvoid}  # Int32 (*)(Ptr{Cvoid}, Ptr{Cfloat}, Csize_t, UInt64, Ptr{Cfloat})
const sgs_batch_energy_fn = Ptr{Cvoid}  # Int32 (*)(Ptr{Cvoid}, Ptr{Cdouble}, Csize_t, Csize_t, Ptr{Csize_t}, Ptr{Cdouble}, Ptr{Int32})
const sgs_batch_gradient_fn = Ptr{Cvoid}  # Int32 (*)(Ptr{Cvoid}, Ptr{Cdouble}, Csize_t, Csize_t, Ptr{UInt64}, Ptr{Csize_t}, Ptr{Cdouble}, Ptr{Int32})
const sgs_batch_energy_fn_f32 = Ptr{Cvoid}  # Int32 (*)(Ptr{Cvoid}, Ptr{Cfloat}, Csize_t, Csize_t, Ptr{Csize_t}, Ptr{Cdouble}, Ptr{Int32})
const sgs_batch_gradient_fn_f32 = Ptr{Cvoid}  # Int32 (*)(Ptr{Cvoid}, Ptr{Cfloat}, Csize_t, Csize_t, Ptr{UInt64}, Ptr{Csize_t}, Ptr{Cfloat}, Ptr{Int32})
const sgs_exact_difference_fn = Ptr{Cvoid}  # Int32 (*)(Ptr{Cvoid}, Ptr{Cdouble}, Ptr{Cdouble}, Csize_t, Ptr{Cdouble})
const sgs_differences_fn = Ptr{Cvoid}  # Int32 (*)(Ptr{Cvoid}, Ptr{Cdouble}, Ptr{Cdouble}, Csize_t, Ptr{UInt64}, Csize_t, Ptr{Cdouble})
const sgs_exact_difference_fn_f32 = Ptr{Cvoid}  # Int32 (*)(Ptr{Cvoid}, Ptr{Cfloat}, Ptr{Cfloat}, Csize_t, Ptr{Cdouble})
const sgs_differences_fn_f32 = Ptr{Cvoid}  # Int32 (*)(Ptr{Cvoid}, Ptr{Cfloat}, Ptr{Cfloat}, Csize_t, Ptr{UInt64}, Csize_t, Ptr{Cdouble})
const sgs_gradients_fn = Ptr{Cvoid}  # Int32 (*)(Ptr{Cvoid}, Ptr{Cdouble}, Csize_t, Csize_t, UInt64, Ptr{Cdouble})
const sgs_gradients_fn_f32 = Ptr{Cvoid}  # Int32 (*)(Ptr{Cvoid}, Ptr{Cfloat}, Csize_t, Csize_t, UInt64, Ptr{Cfloat})

# Structs
struct sgs_tunamh_config
    step_size::Cdouble
    bound::Cdouble
    chi::Cdouble
    terms::UInt64
    seed::UInt64
    stream::UInt64
end
struct sgs_tunamh
    _opaque::NTuple{40, UInt64}
end
struct sgs_tunamh_info
    log_ratio::Cdouble
    evaluations::UInt64
    kept::UInt64
    iteration::UInt64
    divergences::UInt64
    outcome::UInt32
    accepted::UInt32
    full_pass::UInt32
    reserved::UInt32
end
struct sgs_tunamh_run_summary
    iterations::UInt64
    accepted::UInt64
    divergences::UInt64
    has_last::UInt32
    reserved::UInt32
    last::sgs_tunamh_info
end
struct sgs_tunamh_f32
    _opaque::NTuple{40, UInt64}
end
struct sgs_amagold_config
    step_size::Cdouble
    friction::Cdouble
    momentum_sd::Cdouble
    target_accept::Cdouble
    warmup::UInt64
    seed::UInt64
    stream::UInt64
    steps::UInt32
    variant::UInt32
    mass::UInt32
    approach::UInt32
    jitter_steps::UInt32
    reserved::UInt32
end
struct sgs_amagold
    _opaque::NTuple{128, UInt64}
end
struct sgs_amagold_info
    log_accept::Cdouble
    rho::Cdouble
    energy::Cdouble
    accept_rate::Cdouble
    step_size::Cdouble
    iteration::UInt64
    divergences::UInt64
    outcome::UInt32
    accepted::UInt32
    warmup::UInt32
    phase::UInt32
    steps::UInt32
    reserved::UInt32
end
struct sgs_amagold_run_summary
    iterations::UInt64
    accepted::UInt64
    divergences::UInt64
    has_last::UInt32
    reserved::UInt32
    last::sgs_amagold_info
end
struct sgs_amagold_f32
    _opaque::NTuple{128, UInt64}
end
struct sgs_sghmc
    _opaque::NTuple{24, UInt64}
end
struct sgs_chain_info
    iteration::UInt64
    divergences::UInt64
    outcome::UInt32
    reserved::UInt32
end
const sgs_sghmc_info = sgs_chain_info
const sgs_sgld_info = sgs_chain_info
struct sgs_chain_run_summary
    iterations::UInt64
    accepted::UInt64
    divergences::UInt64
    has_last::UInt32
    reserved::UInt32
    last::sgs_chain_info
end
const sgs_sghmc_run_summary = sgs_chain_run_summary
const sgs_sgld_run_summary = sgs_chain_run_summary
struct sgs_sghmc_f32
    _opaque::NTuple{24, UInt64}
end
struct sgs_sgld
    _opaque::NTuple{18, UInt64}
end
struct sgs_sgld_f32
    _opaque::NTuple{18, UInt64}
end
struct sgs_sghmc_config
    step_size::Cdouble
    friction::Cdouble
    momentum_sd::Cdouble
    seed::UInt64
    stream::UInt64
    steps::UInt32
    resample_momentum::UInt32
    mass::UInt32
    reserved::UInt32
end
struct sgs_sgld_config
    step_size::Cdouble
    steps::UInt32
    mass::UInt32
    seed::UInt64
    stream::UInt64
end
struct sgs_svgd_schedule
    start::UInt64
    every::UInt64
    min_decrease::Cdouble
    kind::UInt32
    reserved::UInt32
end
struct sgs_svgd
    _opaque::NTuple{64, UInt64}
end
struct sgs_svgd_info
    iteration::UInt64
    interactions::UInt64
    bandwidth::Cdouble
    step_size::Cdouble
    mean_force::Cdouble
    max_force::Cdouble
    ksd_squared::Cdouble
end
struct sgs_svgd_run_summary
    iterations::UInt64
    accepted::UInt64
    divergences::UInt64
    has_last::UInt32
    reserved::UInt32
    last::sgs_svgd_info
end
struct sgs_svgd_f32
    _opaque::NTuple{64, UInt64}
end
struct sgs_svgd_config
    step_size::Cdouble
    adagrad_alpha::Cdouble
    bandwidth::Cdouble
    imq_c::Cdouble
    imq_beta::Cdouble
    batch_size::UInt64
    seed::UInt64
    stream::UInt64
    batching::UInt32
    kernel::UInt32
    step_rule::UInt32
    reserved::UInt32
    ksd::UInt32
    ksd_reserved::UInt32
    ksd_c::Cdouble
    ksd_beta::Cdouble
    scale::UInt32
    scale_reserved::UInt32
    anneal::UInt32
    permutation::UInt32
    anneal_iterations::UInt64
    anneal_cycles::UInt64
    anneal_power::Cdouble
end
struct sgs_svgd_shard
    _opaque::NTuple{160, UInt64}
end
struct sgs_svgd_shard_partial
    force_sum::Cdouble
    force_max::Cdouble
    moves::UInt64
    interactions::UInt64
    finite::UInt64
end
struct sgs_svgd_shard_records
    idx::Ptr{UInt32}
    idx_len::Csize_t
    rows::Ptr{Cdouble}
    rows_len::Csize_t
end
struct sgs_svgd_shard_f32
    _opaque::NTuple{160, UInt64}
end
struct sgs_svgd_shard_records_f32
    idx::Ptr{UInt32}
    idx_len::Csize_t
    rows::Ptr{Cfloat}
    rows_len::Csize_t
end
struct sgs_warmup_report
    step_size::Cdouble
    target_accept::Cdouble
    accept_rate::Cdouble
    energy_trend_z::Cdouble
    energy_mean::Cdouble
    energy_sd::Cdouble
    bfmi::Cdouble
    condition_number::Cdouble
    approach_energy_start::Cdouble
    approach_energy_end::Cdouble
    iterations::UInt64
    approach_iterations::UInt64
    divergences::UInt64
    window_iterations::UInt64
    window_divergences::UInt64
    verdict::UInt32
    reasons::UInt32
    metric_updates::UInt32
    restarts::UInt32
    energy_trend_falling::UInt32
    energy_trend_rising::UInt32
    approach_unfinished::UInt32
    reserved::UInt32
end
struct sgs_draws_stats
    mean::Cdouble
    sd::Cdouble
    mcse_mean::Cdouble
    mcse_sd::Cdouble
    q5::Cdouble
    q50::Cdouble
    q95::Cdouble
    mcse_q5::Cdouble
    mcse_q50::Cdouble
    mcse_q95::Cdouble
    ess_bulk::Cdouble
    ess_tail::Cdouble
    ess_mean::Cdouble
    rhat::Cdouble
    rhat_bulk::Cdouble
    rhat_folded::Cdouble
    rhat_split::Cdouble
    flags::UInt32
    reserved::UInt32
end
struct sgs_draws_verdict
    ok::UInt32
    flags::UInt32
    worst_rhat::Cdouble
    min_ess_bulk::Cdouble
    min_ess_tail::Cdouble
    ess_threshold::Cdouble
    worst_rhat_coord::UInt64
    min_ess_bulk_coord::UInt64
    min_ess_tail_coord::UInt64
    not_computable::UInt64
    first_not_computable::UInt64
    divergences::UInt64
end
struct sgs_stats
    _opaque::NTuple{4, UInt64}
end

# Functions: one @ccall per declaration, arguments in the header's order
sgs_minibatch(seed, n, out, len) = @ccall libsgsample.sgs_minibatch(seed::UInt64, n::UInt64, out::Ptr{UInt64}, len::Csize_t)::sgs_status
sgs_normal(seed, out, n) = @ccall libsgsample.sgs_normal(seed::UInt64, out::Ptr{Cdouble}, n::Csize_t)::sgs_status
sgs_normal_f32(seed, out, n) = @ccall libsgsample.sgs_normal_f32(seed::UInt64, out::Ptr{Cfloat}, n::Csize_t)::sgs_status
sgs_uniform(seed, out, n) = @ccall libsgsample.sgs_uniform(seed::UInt64, out::Ptr{Cdouble}, n::Csize_t)::sgs_status
sgs_uniform_f32(seed, out, n) = @ccall libsgsample.sgs_uniform_f32(seed::UInt64, out::Ptr{Cfloat}, n::Csize_t)::sgs_status
sgs_status_str(status) = @ccall libsgsample.sgs_status_str(status::Int32)::Ptr{Cchar}
sgs_version() = @ccall libsgsample.sgs_version()::Ptr{Cchar}
sgs_stein_thin(x, grad, n, d, scale, precond, c, beta, selected, m, scratch, scratch_len) = @ccall libsgsample.sgs_stein_thin(x::Ptr{Cdouble}, grad::Ptr{Cdouble}, n::Csize_t, d::Csize_t, scale::Ptr{Cdouble}, precond::Ptr{Cdouble}, c::Cdouble, beta::Cdouble, selected::Ptr{Csize_t}, m::Csize_t, scratch::Ptr{Cdouble}, scratch_len::Csize_t)::sgs_status
sgs_stein_thin_scales(x, n, d, scales) = @ccall libsgsample.sgs_stein_thin_scales(x::Ptr{Cdouble}, n::Csize_t, d::Csize_t, scales::Ptr{Cdouble})::sgs_status
sgs_stein_thin_f32(x, grad, n, d, scale, precond, c, beta, selected, m, scratch, scratch_len) = @ccall libsgsample.sgs_stein_thin_f32(x::Ptr{Cfloat}, grad::Ptr{Cfloat}, n::Csize_t, d::Csize_t, scale::Ptr{Cdouble}, precond::Ptr{Cdouble}, c::Cdouble, beta::Cdouble, selected::Ptr{Csize_t}, m::Csize_t, scratch::Ptr{Cdouble}, scratch_len::Csize_t)::sgs_status
sgs_stein_thin_scales_f32(x, n, d, scales) = @ccall libsgsample.sgs_stein_thin_scales_f32(x::Ptr{Cfloat}, n::Csize_t, d::Csize_t, scales::Ptr{Cdouble})::sgs_status
sgs_tunamh_config_default(step_size, terms, bound) = @ccall libsgsample.sgs_tunamh_config_default(step_size::Cdouble, terms::UInt64, bound::Cdouble)::sgs_tunamh_config
sgs_tunamh_workspace_len(d) = @ccall libsgsample.sgs_tunamh_workspace_len(d::Csize_t)::Csize_t
sgs_tunamh_state_size() = @ccall libsgsample.sgs_tunamh_state_size()::Csize_t
sgs_tunamh_state_align() = @ccall libsgsample.sgs_tunamh_state_align()::Csize_t
sgs_tunamh_init(state, config, theta0, d, workspace, workspace_len, exact_difference, differences, user_data) = @ccall libsgsample.sgs_tunamh_init(state::Ptr{sgs_tunamh}, config::Ptr{sgs_tunamh_config}, theta0::Ptr{Cdouble}, d::Csize_t, workspace::Ptr{Cdouble}, workspace_len::Csize_t, exact_difference::sgs_exact_difference_fn, differences::sgs_differences_fn, user_data::Ptr{Cvoid})::sgs_status
sgs_tunamh_step(state, info) = @ccall libsgsample.sgs_tunamh_step(state::Ptr{sgs_tunamh}, info::Ptr{sgs_tunamh_info})::sgs_status
sgs_tunamh_run(state, n, out, out_len, samples_done, summary) = @ccall libsgsample.sgs_tunamh_run(state::Ptr{sgs_tunamh}, n::Csize_t, out::Ptr{Cdouble}, out_len::Csize_t, samples_done::Ptr{Csize_t}, summary::Ptr{sgs_tunamh_run_summary})::sgs_status
sgs_tunamh_position(state, out, out_len) = @ccall libsgsample.sgs_tunamh_position(state::Ptr{sgs_tunamh}, out::Ptr{Cdouble}, out_len::Csize_t)::sgs_status
sgs_tunamh_iterations(state, iterations) = @ccall libsgsample.sgs_tunamh_iterations(state::Ptr{sgs_tunamh}, iterations::Ptr{UInt64})::sgs_status
sgs_tunamh_divergences(state, divergences) = @ccall libsgsample.sgs_tunamh_divergences(state::Ptr{sgs_tunamh}, divergences::Ptr{UInt64})::sgs_status
sgs_tunamh_dim(state, d) = @ccall libsgsample.sgs_tunamh_dim(state::Ptr{sgs_tunamh}, d::Ptr{Csize_t})::sgs_status
sgs_tunamh_clear(state) = @ccall libsgsample.sgs_tunamh_clear(state::Ptr{sgs_tunamh})::sgs_status
sgs_tunamh_copy(dst, dst_workspace, dst_workspace_len, src) = @ccall libsgsample.sgs_tunamh_copy(dst::Ptr{sgs_tunamh}, dst_workspace::Ptr{Cdouble}, dst_workspace_len::Csize_t, src::Ptr{sgs_tunamh})::sgs_status
sgs_tunamh_export_len(state, len) = @ccall libsgsample.sgs_tunamh_export_len(state::Ptr{sgs_tunamh}, len::Ptr{Csize_t})::sgs_status
sgs_tunamh_export(state, out, out_len) = @ccall libsgsample.sgs_tunamh_export(state::Ptr{sgs_tunamh}, out::Ptr{Cvoid}, out_len::Csize_t)::sgs_status
sgs_tunamh_import(state, input, input_len) = @ccall libsgsample.sgs_tunamh_import(state::Ptr{sgs_tunamh}, input::Ptr{Cvoid}, input_len::Csize_t)::sgs_status
sgs_tunamh_workspace_len_f32(d) = @ccall libsgsample.sgs_tunamh_workspace_len_f32(d::Csize_t)::Csize_t
sgs_tunamh_state_size_f32() = @ccall libsgsample.sgs_tunamh_state_size_f32()::Csize_t
sgs_tunamh_state_align_f32() = @ccall libsgsample.sgs_tunamh_state_align_f32()::Csize_t
sgs_tunamh_init_f32(state, config, theta0, d, workspace, workspace_len, exact_difference, differences, user_data) = @ccall libsgsample.sgs_tunamh_init_f32(state::Ptr{sgs_tunamh_f32}, config::Ptr{sgs_tunamh_config}, theta0::Ptr{Cfloat}, d::Csize_t, workspace::Ptr{Cfloat}, workspace_len::Csize_t, exact_difference::sgs_exact_difference_fn_f32, differences::sgs_differences_fn_f32, user_data::Ptr{Cvoid})::sgs_status
sgs_tunamh_step_f32(state, info) = @ccall libsgsample.sgs_tunamh_step_f32(state::Ptr{sgs_tunamh_f32}, info::Ptr{sgs_tunamh_info})::sgs_status
sgs_tunamh_run_f32(state, n, out, out_len, samples_done, summary) = @ccall libsgsample.sgs_tunamh_run_f32(state::Ptr{sgs_tunamh_f32}, n::Csize_t, out::Ptr{Cfloat}, out_len::Csize_t, samples_done::Ptr{Csize_t}, summary::Ptr{sgs_tunamh_run_summary})::sgs_status
sgs_tunamh_position_f32(state, out, out_len) = @ccall libsgsample.sgs_tunamh_position_f32(state::Ptr{sgs_tunamh_f32}, out::Ptr{Cfloat}, out_len::Csize_t)::sgs_status
sgs_tunamh_iterations_f32(state, iterations) = @ccall libsgsample.sgs_tunamh_iterations_f32(state::Ptr{sgs_tunamh_f32}, iterations::Ptr{UInt64})::sgs_status
sgs_tunamh_divergences_f32(state, divergences) = @ccall libsgsample.sgs_tunamh_divergences_f32(state::Ptr{sgs_tunamh_f32}, divergences::Ptr{UInt64})::sgs_status
sgs_tunamh_dim_f32(state, d) = @ccall libsgsample.sgs_tunamh_dim_f32(state::Ptr{sgs_tunamh_f32}, d::Ptr{Csize_t})::sgs_status
sgs_tunamh_clear_f32(state) = @ccall libsgsample.sgs_tunamh_clear_f32(state::Ptr{sgs_tunamh_f32})::sgs_status
sgs_tunamh_copy_f32(dst, dst_workspace, dst_workspace_len, src) = @ccall libsgsample.sgs_tunamh_copy_f32(dst::Ptr{sgs_tunamh_f32}, dst_workspace::Ptr{Cfloat}, dst_workspace_len::Csize_t, src::Ptr{sgs_tunamh_f32})::sgs_status
sgs_tunamh_export_len_f32(state, len) = @ccall libsgsample.sgs_tunamh_export_len_f32(state::Ptr{sgs_tunamh_f32}, len::Ptr{Csize_t})::sgs_status
sgs_tunamh_export_f32(state, out, out_len) = @ccall libsgsample.sgs_tunamh_export_f32(state::Ptr{sgs_tunamh_f32}, out::Ptr{Cvoid}, out_len::Csize_t)::sgs_status
sgs_tunamh_import_f32(state, input, input_len) = @ccall libsgsample.sgs_tunamh_import_f32(state::Ptr{sgs_tunamh_f32}, input::Ptr{Cvoid}, input_len::Csize_t)::sgs_status
sgs_tunamh_accepted(state, out) = @ccall libsgsample.sgs_tunamh_accepted(state::Ptr{sgs_tunamh}, out::Ptr{UInt64})::sgs_status
sgs_tunamh_accepted_f32(state, out) = @ccall libsgsample.sgs_tunamh_accepted_f32(state::Ptr{sgs_tunamh_f32}, out::Ptr{UInt64})::sgs_status
sgs_tunamh_evaluations(state, out) = @ccall libsgsample.sgs_tunamh_evaluations(state::Ptr{sgs_tunamh}, out::Ptr{UInt64})::sgs_status
sgs_tunamh_evaluations_f32(state, out) = @ccall libsgsample.sgs_tunamh_evaluations_f32(state::Ptr{sgs_tunamh_f32}, out::Ptr{UInt64})::sgs_status
sgs_particle_weights(x, n, d, energies, h, weights, ess) = @ccall libsgsample.sgs_particle_weights(x::Ptr{Cdouble}, n::Csize_t, d::Csize_t, energies::Ptr{Cdouble}, h::Cdouble, weights::Ptr{Cdouble}, ess::Ptr{Cdouble})::sgs_status
sgs_median_bandwidth(x, n, d, scratch, scratch_len, h) = @ccall libsgsample.sgs_median_bandwidth(x::Ptr{Cdouble}, n::Csize_t, d::Csize_t, scratch::Ptr{Cdouble}, scratch_len::Csize_t, h::Ptr{Cdouble})::sgs_status
sgs_kde_draws(x, n, d, h, seed, y, m) = @ccall libsgsample.sgs_kde_draws(x::Ptr{Cdouble}, n::Csize_t, d::Csize_t, h::Cdouble, seed::UInt64, y::Ptr{Cdouble}, m::Csize_t)::sgs_status
sgs_kde_weights(x, n, d, h, y, m, energies, weights, ess) = @ccall libsgsample.sgs_kde_weights(x::Ptr{Cdouble}, n::Csize_t, d::Csize_t, h::Cdouble, y::Ptr{Cdouble}, m::Csize_t, energies::Ptr{Cdouble}, weights::Ptr{Cdouble}, ess::Ptr{Cdouble})::sgs_status
sgs_particle_weights_f32(x, n, d, energies, h, weights, ess) = @ccall libsgsample.sgs_particle_weights_f32(x::Ptr{Cfloat}, n::Csize_t, d::Csize_t, energies::Ptr{Cdouble}, h::Cdouble, weights::Ptr{Cdouble}, ess::Ptr{Cdouble})::sgs_status
sgs_median_bandwidth_f32(x, n, d, scratch, scratch_len, h) = @ccall libsgsample.sgs_median_bandwidth_f32(x::Ptr{Cfloat}, n::Csize_t, d::Csize_t, scratch::Ptr{Cfloat}, scratch_len::Csize_t, h::Ptr{Cdouble})::sgs_status
sgs_kde_draws_f32(x, n, d, h, seed, y, m) = @ccall libsgsample.sgs_kde_draws_f32(x::Ptr{Cfloat}, n::Csize_t, d::Csize_t, h::Cdouble, seed::UInt64, y::Ptr{Cfloat}, m::Csize_t)::sgs_status
sgs_kde_weights_f32(x, n, d, h, y, m, energies, weights, ess) = @ccall libsgsample.sgs_kde_weights_f32(x::Ptr{Cfloat}, n::Csize_t, d::Csize_t, h::Cdouble, y::Ptr{Cfloat}, m::Csize_t, energies::Ptr{Cdouble}, weights::Ptr{Cdouble}, ess::Ptr{Cdouble})::sgs_status
sgs_amagold_config_default(step_size) = @ccall libsgsample.sgs_amagold_config_default(step_size::Cdouble)::sgs_amagold_config
sgs_amagold_config_adaptive() = @ccall libsgsample.sgs_amagold_config_adaptive()::sgs_amagold_config
sgs_amagold_workspace_len(d) = @ccall libsgsample.sgs_amagold_workspace_len(d::Csize_t)::Csize_t
sgs_amagold_state_size() = @ccall libsgsample.sgs_amagold_state_size()::Csize_t
sgs_amagold_state_align() = @ccall libsgsample.sgs_amagold_state_align()::Csize_t
sgs_amagold_init(state, config, theta0, d, workspace, workspace_len, energy, gradient, user_data) = @ccall libsgsample.sgs_amagold_init(state::Ptr{sgs_amagold}, config::Ptr{sgs_amagold_config}, theta0::Ptr{Cdouble}, d::Csize_t, workspace::Ptr{Cdouble}, workspace_len::Csize_t, energy::sgs_energy_fn, gradient::sgs_gradient_fn, user_data::Ptr{Cvoid})::sgs_status
sgs_amagold_step(state, info) = @ccall libsgsample.sgs_amagold_step(state::Ptr{sgs_amagold}, info::Ptr{sgs_amagold_info})::sgs_status
sgs_amagold_run(state, n, out, out_len, samples_done, summary) = @ccall libsgsample.sgs_amagold_run(state::Ptr{sgs_amagold}, n::Csize_t, out::Ptr{Cdouble}, out_len::Csize_t, samples_done::Ptr{Csize_t}, summary::Ptr{sgs_amagold_run_summary})::sgs_status
sgs_amagold_position(state, out, out_len) = @ccall libsgsample.sgs_amagold_position(state::Ptr{sgs_amagold}, out::Ptr{Cdouble}, out_len::Csize_t)::sgs_status
sgs_amagold_iterations(state, iterations) = @ccall libsgsample.sgs_amagold_iterations(state::Ptr{sgs_amagold}, iterations::Ptr{UInt64})::sgs_status
sgs_amagold_divergences(state, divergences) = @ccall libsgsample.sgs_amagold_divergences(state::Ptr{sgs_amagold}, divergences::Ptr{UInt64})::sgs_status
sgs_amagold_dim(state, d) = @ccall libsgsample.sgs_amagold_dim(state::Ptr{sgs_amagold}, d::Ptr{Csize_t})::sgs_status
sgs_amagold_clear(state) = @ccall libsgsample.sgs_amagold_clear(state::Ptr{sgs_amagold})::sgs_status
sgs_amagold_copy(dst, dst_workspace, dst_workspace_len, src) = @ccall libsgsample.sgs_amagold_copy(dst::Ptr{sgs_amagold}, dst_workspace::Ptr{Cdouble}, dst_workspace_len::Csize_t, src::Ptr{sgs_amagold})::sgs_status
sgs_amagold_export_len(state, len) = @ccall libsgsample.sgs_amagold_export_len(state::Ptr{sgs_amagold}, len::Ptr{Csize_t})::sgs_status
sgs_amagold_export(state, out, out_len) = @ccall libsgsample.sgs_amagold_export(state::Ptr{sgs_amagold}, out::Ptr{Cvoid}, out_len::Csize_t)::sgs_status
sgs_amagold_import(state, input, input_len) = @ccall libsgsample.sgs_amagold_import(state::Ptr{sgs_amagold}, input::Ptr{Cvoid}, input_len::Csize_t)::sgs_status
sgs_amagold_workspace_len_f32(d) = @ccall libsgsample.sgs_amagold_workspace_len_f32(d::Csize_t)::Csize_t
sgs_amagold_state_size_f32() = @ccall libsgsample.sgs_amagold_state_size_f32()::Csize_t
sgs_amagold_state_align_f32() = @ccall libsgsample.sgs_amagold_state_align_f32()::Csize_t
sgs_amagold_init_f32(state, config, theta0, d, workspace, workspace_len, energy, gradient, user_data) = @ccall libsgsample.sgs_amagold_init_f32(state::Ptr{sgs_amagold_f32}, config::Ptr{sgs_amagold_config}, theta0::Ptr{Cfloat}, d::Csize_t, workspace::Ptr{Cfloat}, workspace_len::Csize_t, energy::sgs_energy_fn_f32, gradient::sgs_gradient_fn_f32, user_data::Ptr{Cvoid})::sgs_status
sgs_amagold_step_f32(state, info) = @ccall libsgsample.sgs_amagold_step_f32(state::Ptr{sgs_amagold_f32}, info::Ptr{sgs_amagold_info})::sgs_status
sgs_amagold_run_f32(state, n, out, out_len, samples_done, summary) = @ccall libsgsample.sgs_amagold_run_f32(state::Ptr{sgs_amagold_f32}, n::Csize_t, out::Ptr{Cfloat}, out_len::Csize_t, samples_done::Ptr{Csize_t}, summary::Ptr{sgs_amagold_run_summary})::sgs_status
sgs_amagold_position_f32(state, out, out_len) = @ccall libsgsample.sgs_amagold_position_f32(state::Ptr{sgs_amagold_f32}, out::Ptr{Cfloat}, out_len::Csize_t)::sgs_status
sgs_amagold_iterations_f32(state, iterations) = @ccall libsgsample.sgs_amagold_iterations_f32(state::Ptr{sgs_amagold_f32}, iterations::Ptr{UInt64})::sgs_status
sgs_amagold_divergences_f32(state, divergences) = @ccall libsgsample.sgs_amagold_divergences_f32(state::Ptr{sgs_amagold_f32}, divergences::Ptr{UInt64})::sgs_status
sgs_amagold_dim_f32(state, d) = @ccall libsgsample.sgs_amagold_dim_f32(state::Ptr{sgs_amagold_f32}, d::Ptr{Csize_t})::sgs_status
sgs_amagold_clear_f32(state) = @ccall libsgsample.sgs_amagold_clear_f32(state::Ptr{sgs_amagold_f32})::sgs_status
sgs_amagold_copy_f32(dst, dst_workspace, dst_workspace_len, src) = @ccall libsgsample.sgs_amagold_copy_f32(dst::Ptr{sgs_amagold_f32}, dst_workspace::Ptr{Cfloat}, dst_workspace_len::Csize_t, src::Ptr{sgs_amagold_f32})::sgs_status
sgs_amagold_export_len_f32(state, len) = @ccall libsgsample.sgs_amagold_export_len_f32(state::Ptr{sgs_amagold_f32}, len::Ptr{Csize_t})::sgs_status
sgs_amagold_export_f32(state, out, out_len) = @ccall libsgsample.sgs_amagold_export_f32(state::Ptr{sgs_amagold_f32}, out::Ptr{Cvoid}, out_len::Csize_t)::sgs_status
sgs_amagold_import_f32(state, input, input_len) = @ccall libsgsample.sgs_amagold_import_f32(state::Ptr{sgs_amagold_f32}, input::Ptr{Cvoid}, input_len::Csize_t)::sgs_status
sgs_amagold_momentum(state, out, out_len) = @ccall libsgsample.sgs_amagold_momentum(state::Ptr{sgs_amagold}, out::Ptr{Cdouble}, out_len::Csize_t)::sgs_status
sgs_amagold_momentum_f32(state, out, out_len) = @ccall libsgsample.sgs_amagold_momentum_f32(state::Ptr{sgs_amagold_f32}, out::Ptr{Cfloat}, out_len::Csize_t)::sgs_status
sgs_amagold_energy(state, out) = @ccall libsgsample.sgs_amagold_energy(state::Ptr{sgs_amagold}, out::Ptr{Cdouble})::sgs_status
sgs_amagold_energy_f32(state, out) = @ccall libsgsample.sgs_amagold_energy_f32(state::Ptr{sgs_amagold_f32}, out::Ptr{Cdouble})::sgs_status
sgs_amagold_step_size(state, out) = @ccall libsgsample.sgs_amagold_step_size(state::Ptr{sgs_amagold}, out::Ptr{Cdouble})::sgs_status
sgs_amagold_step_size_f32(state, out) = @ccall libsgsample.sgs_amagold_step_size_f32(state::Ptr{sgs_amagold_f32}, out::Ptr{Cdouble})::sgs_status
sgs_amagold_in_warmup(state, out) = @ccall libsgsample.sgs_amagold_in_warmup(state::Ptr{sgs_amagold}, out::Ptr{UInt32})::sgs_status
sgs_amagold_in_warmup_f32(state, out) = @ccall libsgsample.sgs_amagold_in_warmup_f32(state::Ptr{sgs_amagold_f32}, out::Ptr{UInt32})::sgs_status
sgs_amagold_workspace_len_for(config, d) = @ccall libsgsample.sgs_amagold_workspace_len_for(config::Ptr{sgs_amagold_config}, d::Csize_t)::Csize_t
sgs_amagold_inverse_mass(state, out, out_len) = @ccall libsgsample.sgs_amagold_inverse_mass(state::Ptr{sgs_amagold}, out::Ptr{Cdouble}, out_len::Csize_t)::sgs_status
sgs_amagold_inverse_mass_dense(state, out, out_len) = @ccall libsgsample.sgs_amagold_inverse_mass_dense(state::Ptr{sgs_amagold}, out::Ptr{Cdouble}, out_len::Csize_t)::sgs_status
sgs_amagold_set_step_size(state, step_size) = @ccall libsgsample.sgs_amagold_set_step_size(state::Ptr{sgs_amagold}, step_size::Cdouble)::sgs_status
sgs_amagold_set_inverse_mass(state, k, k_len) = @ccall libsgsample.sgs_amagold_set_inverse_mass(state::Ptr{sgs_amagold}, k::Ptr{Cdouble}, k_len::Csize_t)::sgs_status
sgs_amagold_set_inverse_mass_dense(state, k, k_len) = @ccall libsgsample.sgs_amagold_set_inverse_mass_dense(state::Ptr{sgs_amagold}, k::Ptr{Cdouble}, k_len::Csize_t)::sgs_status
sgs_amagold_workspace_len_for_f32(config, d) = @ccall libsgsample.sgs_amagold_workspace_len_for_f32(config::Ptr{sgs_amagold_config}, d::Csize_t)::Csize_t
sgs_amagold_inverse_mass_f32(state, out, out_len) = @ccall libsgsample.sgs_amagold_inverse_mass_f32(state::Ptr{sgs_amagold_f32}, out::Ptr{Cfloat}, out_len::Csize_t)::sgs_status
sgs_amagold_inverse_mass_dense_f32(state, out, out_len) = @ccall libsgsample.sgs_amagold_inverse_mass_dense_f32(state::Ptr{sgs_amagold_f32}, out::Ptr{Cfloat}, out_len::Csize_t)::sgs_status
sgs_amagold_set_step_size_f32(state, step_size) = @ccall libsgsample.sgs_amagold_set_step_size_f32(state::Ptr{sgs_amagold_f32}, step_size::Cdouble)::sgs_status
sgs_amagold_set_inverse_mass_f32(state, k, k_len) = @ccall libsgsample.sgs_amagold_set_inverse_mass_f32(state::Ptr{sgs_amagold_f32}, k::Ptr{Cfloat}, k_len::Csize_t)::sgs_status
sgs_amagold_set_inverse_mass_dense_f32(state, k, k_len) = @ccall libsgsample.sgs_amagold_set_inverse_mass_dense_f32(state::Ptr{sgs_amagold_f32}, k::Ptr{Cfloat}, k_len::Csize_t)::sgs_status
sgs_amagold_batch_scratch_len(k, d, max_calls) = @ccall libsgsample.sgs_amagold_batch_scratch_len(k::Csize_t, d::Csize_t, max_calls::Csize_t)::Csize_t
sgs_sghmc_batch_scratch_len(k, d, max_calls) = @ccall libsgsample.sgs_sghmc_batch_scratch_len(k::Csize_t, d::Csize_t, max_calls::Csize_t)::Csize_t
sgs_sgld_batch_scratch_len(k, d, max_calls) = @ccall libsgsample.sgs_sgld_batch_scratch_len(k::Csize_t, d::Csize_t, max_calls::Csize_t)::Csize_t
sgs_amagold_run_batch(states, k, n, energy, gradient, user_data, scratch, scratch_len, max_calls, out, out_len, samples_done, summaries) = @ccall libsgsample.sgs_amagold_run_batch(states::Ptr{sgs_amagold}, k::Csize_t, n::Csize_t, energy::sgs_batch_energy_fn, gradient::sgs_batch_gradient_fn, user_data::Ptr{Cvoid}, scratch::Ptr{Cdouble}, scratch_len::Csize_t, max_calls::Csize_t, out::Ptr{Cdouble}, out_len::Csize_t, samples_done::Ptr{Csize_t}, summaries::Ptr{sgs_amagold_run_summary})::sgs_status
sgs_amagold_run_batch_infos(states, k, n, energy, gradient, user_data, scratch, scratch_len, max_calls, out, out_len, samples_done, summaries, infos) = @ccall libsgsample.sgs_amagold_run_batch_infos(states::Ptr{sgs_amagold}, k::Csize_t, n::Csize_t, energy::sgs_batch_energy_fn, gradient::sgs_batch_gradient_fn, user_data::Ptr{Cvoid}, scratch::Ptr{Cdouble}, scratch_len::Csize_t, max_calls::Csize_t, out::Ptr{Cdouble}, out_len::Csize_t, samples_done::Ptr{Csize_t}, summaries::Ptr{sgs_amagold_run_summary}, infos::Ptr{sgs_amagold_info})::sgs_status
sgs_amagold_run_batch_f32(states, k, n, energy, gradient, user_data, scratch, scratch_len, max_calls, out, out_len, samples_done, summaries) = @ccall libsgsample.sgs_amagold_run_batch_f32(states::Ptr{sgs_amagold_f32}, k::Csize_t, n::Csize_t, energy::sgs_batch_energy_fn_f32, gradient::sgs_batch_gradient_fn_f32, user_data::Ptr{Cvoid}, scratch::Ptr{Cdouble}, scratch_len::Csize_t, max_calls::Csize_t, out::Ptr{Cfloat}, out_len::Csize_t, samples_done::Ptr{Csize_t}, summaries::Ptr{sgs_amagold_run_summary})::sgs_status
sgs_amagold_run_batch_infos_f32(states, k, n, energy, gradient, user_data, scratch, scratch_len, max_calls, out, out_len, samples_done, summaries, infos) = @ccall libsgsample.sgs_amagold_run_batch_infos_f32(states::Ptr{sgs_amagold_f32}, k::Csize_t, n::Csize_t, energy::sgs_batch_energy_fn_f32, gradient::sgs_batch_gradient_fn_f32, user_data::Ptr{Cvoid}, scratch::Ptr{Cdouble}, scratch_len::Csize_t, max_calls::Csize_t, out::Ptr{Cfloat}, out_len::Csize_t, samples_done::Ptr{Csize_t}, summaries::Ptr{sgs_amagold_run_summary}, infos::Ptr{sgs_amagold_info})::sgs_status
sgs_sghmc_run_batch(states, k, n, energy, gradient, user_data, scratch, scratch_len, max_calls, out, out_len, samples_done, summaries) = @ccall libsgsample.sgs_sghmc_run_batch(states::Ptr{sgs_sghmc}, k::Csize_t, n::Csize_t, energy::sgs_batch_energy_fn, gradient::sgs_batch_gradient_fn, user_data::Ptr{Cvoid}, scratch::Ptr{Cdouble}, scratch_len::Csize_t, max_calls::Csize_t, out::Ptr{Cdouble}, out_len::Csize_t, samples_done::Ptr{Csize_t}, summaries::Ptr{sgs_sghmc_run_summary})::sgs_status
sgs_sghmc_run_batch_infos(states, k, n, energy, gradient, user_data, scratch, scratch_len, max_calls, out, out_len, samples_done, summaries, infos) = @ccall libsgsample.sgs_sghmc_run_batch_infos(states::Ptr{sgs_sghmc}, k::Csize_t, n::Csize_t, energy::sgs_batch_energy_fn, gradient::sgs_batch_gradient_fn, user_data::Ptr{Cvoid}, scratch::Ptr{Cdouble}, scratch_len::Csize_t, max_calls::Csize_t, out::Ptr{Cdouble}, out_len::Csize_t, samples_done::Ptr{Csize_t}, summaries::Ptr{sgs_sghmc_run_summary}, infos::Ptr{sgs_sghmc_info})::sgs_status
sgs_sghmc_run_batch_f32(states, k, n, energy, gradient, user_data, scratch, scratch_len, max_calls, out, out_len, samples_done, summaries) = @ccall libsgsample.sgs_sghmc_run_batch_f32(states::Ptr{sgs_sghmc_f32}, k::Csize_t, n::Csize_t, energy::sgs_batch_energy_fn_f32, gradient::sgs_batch_gradient_fn_f32, user_data::Ptr{Cvoid}, scratch::Ptr{Cdouble}, scratch_len::Csize_t, max_calls::Csize_t, out::Ptr{Cfloat}, out_len::Csize_t, samples_done::Ptr{Csize_t}, summaries::Ptr{sgs_sghmc_run_summary})::sgs_status
sgs_sghmc_run_batch_infos_f32(states, k, n, energy, gradient, user_data, scratch, scratch_len, max_calls, out, out_len, samples_done, summaries, infos) = @ccall libsgsample.sgs_sghmc_run_batch_infos_f32(states::Ptr{sgs_sghmc_f32}, k::Csize_t, n::Csize_t, energy::sgs_batch_energy_fn_f32, gradient::sgs_batch_gradient_fn_f32, user_data::Ptr{Cvoid}, scratch::Ptr{Cdouble}, scratch_len::Csize_t, max_calls::Csize_t, out::Ptr{Cfloat}, out_len::Csize_t, samples_done::Ptr{Csize_t}, summaries::Ptr{sgs_sghmc_run_summary}, infos::Ptr{sgs_sghmc_info})::sgs_status
sgs_sgld_run_batch(states, k, n, energy, gradient, user_data, scratch, scratch_len, max_calls, out, out_len, samples_done, summaries) = @ccall libsgsample.sgs_sgld_run_batch(states::Ptr{sgs_sgld}, k::Csize_t, n::Csize_t, energy::sgs_batch_energy_fn, gradient::sgs_batch_gradient_fn, user_data::Ptr{Cvoid}, scratch::Ptr{Cdouble}, scratch_len::Csize_t, max_calls::Csize_t, out::Ptr{Cdouble}, out_len::Csize_t, samples_done::Ptr{Csize_t}, summaries::Ptr{sgs_sgld_run_summary})::sgs_status
sgs_sgld_run_batch_infos(states, k, n, energy, gradient, user_data, scratch, scratch_len, max_calls, out, out_len, samples_done, summaries, infos) = @ccall libsgsample.sgs_sgld_run_batch_infos(states::Ptr{sgs_sgld}, k::Csize_t, n::Csize_t, energy::sgs_batch_energy_fn, gradient::sgs_batch_gradient_fn, user_data::Ptr{Cvoid}, scratch::Ptr{Cdouble}, scratch_len::Csize_t, max_calls::Csize_t, out::Ptr{Cdouble}, out_len::Csize_t, samples_done::Ptr{Csize_t}, summaries::Ptr{sgs_sgld_run_summary}, infos::Ptr{sgs_sgld_info})::sgs_status
sgs_sgld_run_batch_f32(states, k, n, energy, gradient, user_data, scratch, scratch_len, max_calls, out, out_len, samples_done, summaries) = @ccall libsgsample.sgs_sgld_run_batch_f32(states::Ptr{sgs_sgld_f32}, k::Csize_t, n::Csize_t, energy::sgs_batch_energy_fn_f32, gradient::sgs_batch_gradient_fn_f32, user_data::Ptr{Cvoid}, scratch::Ptr{Cdouble}, scratch_len::Csize_t, max_calls::Csize_t, out::Ptr{Cfloat}, out_len::Csize_t, samples_done::Ptr{Csize_t}, summaries::Ptr{sgs_sgld_run_summary})::sgs_status
sgs_sgld_run_batch_infos_f32(states, k, n, energy, gradient, user_data, scratch, scratch_len, max_calls, out, out_len, samples_done, summaries, infos) = @ccall libsgsample.sgs_sgld_run_batch_infos_f32(states::Ptr{sgs_sgld_f32}, k::Csize_t, n::Csize_t, energy::sgs_batch_energy_fn_f32, gradient::sgs_batch_gradient_fn_f32, user_data::Ptr{Cvoid}, scratch::Ptr{Cdouble}, scratch_len::Csize_t, max_calls::Csize_t, out::Ptr{Cfloat}, out_len::Csize_t, samples_done::Ptr{Csize_t}, summaries::Ptr{sgs_sgld_run_summary}, infos::Ptr{sgs_sgld_info})::sgs_status
sgs_sghmc_config_default(step_size) = @ccall libsgsample.sgs_sghmc_config_default(step_size::Cdouble)::sgs_sghmc_config
sgs_sghmc_workspace_len(d) = @ccall libsgsample.sgs_sghmc_workspace_len(d::Csize_t)::Csize_t
sgs_sghmc_state_size() = @ccall libsgsample.sgs_sghmc_state_size()::Csize_t
sgs_sghmc_state_align() = @ccall libsgsample.sgs_sghmc_state_align()::Csize_t
sgs_sghmc_init(state, config, theta0, d, workspace, workspace_len, gradient, user_data) = @ccall libsgsample.sgs_sghmc_init(state::Ptr{sgs_sghmc}, config::Ptr{sgs_sghmc_config}, theta0::Ptr{Cdouble}, d::Csize_t, workspace::Ptr{Cdouble}, workspace_len::Csize_t, gradient::sgs_gradient_fn, user_data::Ptr{Cvoid})::sgs_status
sgs_sghmc_step(state, info) = @ccall libsgsample.sgs_sghmc_step(state::Ptr{sgs_sghmc}, info::Ptr{sgs_sghmc_info})::sgs_status
sgs_sghmc_run(state, n, out, out_len, samples_done, summary) = @ccall libsgsample.sgs_sghmc_run(state::Ptr{sgs_sghmc}, n::Csize_t, out::Ptr{Cdouble}, out_len::Csize_t, samples_done::Ptr{Csize_t}, summary::Ptr{sgs_sghmc_run_summary})::sgs_status
sgs_sghmc_position(state, out, out_len) = @ccall libsgsample.sgs_sghmc_position(state::Ptr{sgs_sghmc}, out::Ptr{Cdouble}, out_len::Csize_t)::sgs_status
sgs_sghmc_iterations(state, iterations) = @ccall libsgsample.sgs_sghmc_iterations(state::Ptr{sgs_sghmc}, iterations::Ptr{UInt64})::sgs_status
sgs_sghmc_divergences(state, divergences) = @ccall libsgsample.sgs_sghmc_divergences(state::Ptr{sgs_sghmc}, divergences::Ptr{UInt64})::sgs_status
sgs_sghmc_dim(state, d) = @ccall libsgsample.sgs_sghmc_dim(state::Ptr{sgs_sghmc}, d::Ptr{Csize_t})::sgs_status
sgs_sghmc_clear(state) = @ccall libsgsample.sgs_sghmc_clear(state::Ptr{sgs_sghmc})::sgs_status
sgs_sghmc_copy(dst, dst_workspace, dst_workspace_len, src) = @ccall libsgsample.sgs_sghmc_copy(dst::Ptr{sgs_sghmc}, dst_workspace::Ptr{Cdouble}, dst_workspace_len::Csize_t, src::Ptr{sgs_sghmc})::sgs_status
sgs_sghmc_export_len(state, len) = @ccall libsgsample.sgs_sghmc_export_len(state::Ptr{sgs_sghmc}, len::Ptr{Csize_t})::sgs_status
sgs_sghmc_export(state, out, out_len) = @ccall libsgsample.sgs_sghmc_export(state::Ptr{sgs_sghmc}, out::Ptr{Cvoid}, out_len::Csize_t)::sgs_status
sgs_sghmc_import(state, input, input_len) = @ccall libsgsample.sgs_sghmc_import(state::Ptr{sgs_sghmc}, input::Ptr{Cvoid}, input_len::Csize_t)::sgs_status
sgs_sghmc_workspace_len_f32(d) = @ccall libsgsample.sgs_sghmc_workspace_len_f32(d::Csize_t)::Csize_t
sgs_sghmc_state_size_f32() = @ccall libsgsample.sgs_sghmc_state_size_f32()::Csize_t
sgs_sghmc_state_align_f32() = @ccall libsgsample.sgs_sghmc_state_align_f32()::Csize_t
sgs_sghmc_init_f32(state, config, theta0, d, workspace, workspace_len, gradient, user_data) = @ccall libsgsample.sgs_sghmc_init_f32(state::Ptr{sgs_sghmc_f32}, config::Ptr{sgs_sghmc_config}, theta0::Ptr{Cfloat}, d::Csize_t, workspace::Ptr{Cfloat}, workspace_len::Csize_t, gradient::sgs_gradient_fn_f32, user_data::Ptr{Cvoid})::sgs_status
sgs_sghmc_step_f32(state, info) = @ccall libsgsample.sgs_sghmc_step_f32(state::Ptr{sgs_sghmc_f32}, info::Ptr{sgs_sghmc_info})::sgs_status
sgs_sghmc_run_f32(state, n, out, out_len, samples_done, summary) = @ccall libsgsample.sgs_sghmc_run_f32(state::Ptr{sgs_sghmc_f32}, n::Csize_t, out::Ptr{Cfloat}, out_len::Csize_t, samples_done::Ptr{Csize_t}, summary::Ptr{sgs_sghmc_run_summary})::sgs_status
sgs_sghmc_position_f32(state, out, out_len) = @ccall libsgsample.sgs_sghmc_position_f32(state::Ptr{sgs_sghmc_f32}, out::Ptr{Cfloat}, out_len::Csize_t)::sgs_status
sgs_sghmc_iterations_f32(state, iterations) = @ccall libsgsample.sgs_sghmc_iterations_f32(state::Ptr{sgs_sghmc_f32}, iterations::Ptr{UInt64})::sgs_status
sgs_sghmc_divergences_f32(state, divergences) = @ccall libsgsample.sgs_sghmc_divergences_f32(state::Ptr{sgs_sghmc_f32}, divergences::Ptr{UInt64})::sgs_status
sgs_sghmc_dim_f32(state, d) = @ccall libsgsample.sgs_sghmc_dim_f32(state::Ptr{sgs_sghmc_f32}, d::Ptr{Csize_t})::sgs_status
sgs_sghmc_clear_f32(state) = @ccall libsgsample.sgs_sghmc_clear_f32(state::Ptr{sgs_sghmc_f32})::sgs_status
sgs_sghmc_copy_f32(dst, dst_workspace, dst_workspace_len, src) = @ccall libsgsample.sgs_sghmc_copy_f32(dst::Ptr{sgs_sghmc_f32}, dst_workspace::Ptr{Cfloat}, dst_workspace_len::Csize_t, src::Ptr{sgs_sghmc_f32})::sgs_status
sgs_sghmc_export_len_f32(state, len) = @ccall libsgsample.sgs_sghmc_export_len_f32(state::Ptr{sgs_sghmc_f32}, len::Ptr{Csize_t})::sgs_status
sgs_sghmc_export_f32(state, out, out_len) = @ccall libsgsample.sgs_sghmc_export_f32(state::Ptr{sgs_sghmc_f32}, out::Ptr{Cvoid}, out_len::Csize_t)::sgs_status
sgs_sghmc_import_f32(state, input, input_len) = @ccall libsgsample.sgs_sghmc_import_f32(state::Ptr{sgs_sghmc_f32}, input::Ptr{Cvoid}, input_len::Csize_t)::sgs_status
sgs_sghmc_momentum(state, out, out_len) = @ccall libsgsample.sgs_sghmc_momentum(state::Ptr{sgs_sghmc}, out::Ptr{Cdouble}, out_len::Csize_t)::sgs_status
sgs_sghmc_momentum_f32(state, out, out_len) = @ccall libsgsample.sgs_sghmc_momentum_f32(state::Ptr{sgs_sghmc_f32}, out::Ptr{Cfloat}, out_len::Csize_t)::sgs_status
sgs_sghmc_workspace_len_for(config, d) = @ccall libsgsample.sgs_sghmc_workspace_len_for(config::Ptr{sgs_sghmc_config}, d::Csize_t)::Csize_t
sgs_sghmc_set_inverse_mass(state, k, k_len) = @ccall libsgsample.sgs_sghmc_set_inverse_mass(state::Ptr{sgs_sghmc}, k::Ptr{Cdouble}, k_len::Csize_t)::sgs_status
sgs_sghmc_inverse_mass(state, out, out_len) = @ccall libsgsample.sgs_sghmc_inverse_mass(state::Ptr{sgs_sghmc}, out::Ptr{Cdouble}, out_len::Csize_t)::sgs_status
sgs_sghmc_workspace_len_for_f32(config, d) = @ccall libsgsample.sgs_sghmc_workspace_len_for_f32(config::Ptr{sgs_sghmc_config}, d::Csize_t)::Csize_t
sgs_sghmc_set_inverse_mass_f32(state, k, k_len) = @ccall libsgsample.sgs_sghmc_set_inverse_mass_f32(state::Ptr{sgs_sghmc_f32}, k::Ptr{Cfloat}, k_len::Csize_t)::sgs_status
sgs_sghmc_inverse_mass_f32(state, out, out_len) = @ccall libsgsample.sgs_sghmc_inverse_mass_f32(state::Ptr{sgs_sghmc_f32}, out::Ptr{Cfloat}, out_len::Csize_t)::sgs_status
sgs_sgld_workspace_len_f32(d) = @ccall libsgsample.sgs_sgld_workspace_len_f32(d::Csize_t)::Csize_t
sgs_sgld_state_size_f32() = @ccall libsgsample.sgs_sgld_state_size_f32()::Csize_t
sgs_sgld_state_align_f32() = @ccall libsgsample.sgs_sgld_state_align_f32()::Csize_t
sgs_sgld_init_f32(state, config, theta0, d, workspace, workspace_len, gradient, user_data) = @ccall libsgsample.sgs_sgld_init_f32(state::Ptr{sgs_sgld_f32}, config::Ptr{sgs_sgld_config}, theta0::Ptr{Cfloat}, d::Csize_t, workspace::Ptr{Cfloat}, workspace_len::Csize_t, gradient::sgs_gradient_fn_f32, user_data::Ptr{Cvoid})::sgs_status
sgs_sgld_step_f32(state, info) = @ccall libsgsample.sgs_sgld_step_f32(state::Ptr{sgs_sgld_f32}, info::Ptr{sgs_sgld_info})::sgs_status
sgs_sgld_run_f32(state, n, out, out_len, samples_done, summary) = @ccall libsgsample.sgs_sgld_run_f32(state::Ptr{sgs_sgld_f32}, n::Csize_t, out::Ptr{Cfloat}, out_len::Csize_t, samples_done::Ptr{Csize_t}, summary::Ptr{sgs_sgld_run_summary})::sgs_status
sgs_sgld_position_f32(state, out, out_len) = @ccall libsgsample.sgs_sgld_position_f32(state::Ptr{sgs_sgld_f32}, out::Ptr{Cfloat}, out_len::Csize_t)::sgs_status
sgs_sgld_iterations_f32(state, iterations) = @ccall libsgsample.sgs_sgld_iterations_f32(state::Ptr{sgs_sgld_f32}, iterations::Ptr{UInt64})::sgs_status
sgs_sgld_divergences_f32(state, divergences) = @ccall libsgsample.sgs_sgld_divergences_f32(state::Ptr{sgs_sgld_f32}, divergences::Ptr{UInt64})::sgs_status
sgs_sgld_dim_f32(state, d) = @ccall libsgsample.sgs_sgld_dim_f32(state::Ptr{sgs_sgld_f32}, d::Ptr{Csize_t})::sgs_status
sgs_sgld_clear_f32(state) = @ccall libsgsample.sgs_sgld_clear_f32(state::Ptr{sgs_sgld_f32})::sgs_status
sgs_sgld_copy_f32(dst, dst_workspace, dst_workspace_len, src) = @ccall libsgsample.sgs_sgld_copy_f32(dst::Ptr{sgs_sgld_f32}, dst_workspace::Ptr{Cfloat}, dst_workspace_len::Csize_t, src::Ptr{sgs_sgld_f32})::sgs_status
sgs_sgld_export_len_f32(state, len) = @ccall libsgsample.sgs_sgld_export_len_f32(state::Ptr{sgs_sgld_f32}, len::Ptr{Csize_t})::sgs_status
sgs_sgld_export_f32(state, out, out_len) = @ccall libsgsample.sgs_sgld_export_f32(state::Ptr{sgs_sgld_f32}, out::Ptr{Cvoid}, out_len::Csize_t)::sgs_status
sgs_sgld_import_f32(state, input, input_len) = @ccall libsgsample.sgs_sgld_import_f32(state::Ptr{sgs_sgld_f32}, input::Ptr{Cvoid}, input_len::Csize_t)::sgs_status
sgs_sgld_config_default(step_size) = @ccall libsgsample.sgs_sgld_config_default(step_size::Cdouble)::sgs_sgld_config
sgs_sgld_workspace_len(d) = @ccall libsgsample.sgs_sgld_workspace_len(d::Csize_t)::Csize_t
sgs_sgld_state_size() = @ccall libsgsample.sgs_sgld_state_size()::Csize_t
sgs_sgld_state_align() = @ccall libsgsample.sgs_sgld_state_align()::Csize_t
sgs_sgld_init(state, config, theta0, d, workspace, workspace_len, gradient, user_data) = @ccall libsgsample.sgs_sgld_init(state::Ptr{sgs_sgld}, config::Ptr{sgs_sgld_config}, theta0::Ptr{Cdouble}, d::Csize_t, workspace::Ptr{Cdouble}, workspace_len::Csize_t, gradient::sgs_gradient_fn, user_data::Ptr{Cvoid})::sgs_status
sgs_sgld_step(state, info) = @ccall libsgsample.sgs_sgld_step(state::Ptr{sgs_sgld}, info::Ptr{sgs_sgld_info})::sgs_status
sgs_sgld_run(state, n, out, out_len, samples_done, summary) = @ccall libsgsample.sgs_sgld_run(state::Ptr{sgs_sgld}, n::Csize_t, out::Ptr{Cdouble}, out_len::Csize_t, samples_done::Ptr{Csize_t}, summary::Ptr{sgs_sgld_run_summary})::sgs_status
sgs_sgld_position(state, out, out_len) = @ccall libsgsample.sgs_sgld_position(state::Ptr{sgs_sgld}, out::Ptr{Cdouble}, out_len::Csize_t)::sgs_status
sgs_sgld_iterations(state, iterations) = @ccall libsgsample.sgs_sgld_iterations(state::Ptr{sgs_sgld}, iterations::Ptr{UInt64})::sgs_status
sgs_sgld_divergences(state, divergences) = @ccall libsgsample.sgs_sgld_divergences(state::Ptr{sgs_sgld}, divergences::Ptr{UInt64})::sgs_status
sgs_sgld_dim(state, d) = @ccall libsgsample.sgs_sgld_dim(state::Ptr{sgs_sgld}, d::Ptr{Csize_t})::sgs_status
sgs_sgld_clear(state) = @ccall libsgsample.sgs_sgld_clear(state::Ptr{sgs_sgld})::sgs_status
sgs_sgld_copy(dst, dst_workspace, dst_workspace_len, src) = @ccall libsgsample.sgs_sgld_copy(dst::Ptr{sgs_sgld}, dst_workspace::Ptr{Cdouble}, dst_workspace_len::Csize_t, src::Ptr{sgs_sgld})::sgs_status
sgs_sgld_export_len(state, len) = @ccall libsgsample.sgs_sgld_export_len(state::Ptr{sgs_sgld}, len::Ptr{Csize_t})::sgs_status
sgs_sgld_export(state, out, out_len) = @ccall libsgsample.sgs_sgld_export(state::Ptr{sgs_sgld}, out::Ptr{Cvoid}, out_len::Csize_t)::sgs_status
sgs_sgld_import(state, input, input_len) = @ccall libsgsample.sgs_sgld_import(state::Ptr{sgs_sgld}, input::Ptr{Cvoid}, input_len::Csize_t)::sgs_status
sgs_sgld_workspace_len_for(config, d) = @ccall libsgsample.sgs_sgld_workspace_len_for(config::Ptr{sgs_sgld_config}, d::Csize_t)::Csize_t
sgs_sgld_set_inverse_mass(state, k, k_len) = @ccall libsgsample.sgs_sgld_set_inverse_mass(state::Ptr{sgs_sgld}, k::Ptr{Cdouble}, k_len::Csize_t)::sgs_status
sgs_sgld_inverse_mass(state, out, out_len) = @ccall libsgsample.sgs_sgld_inverse_mass(state::Ptr{sgs_sgld}, out::Ptr{Cdouble}, out_len::Csize_t)::sgs_status
sgs_sgld_workspace_len_for_f32(config, d) = @ccall libsgsample.sgs_sgld_workspace_len_for_f32(config::Ptr{sgs_sgld_config}, d::Csize_t)::Csize_t
sgs_sgld_set_inverse_mass_f32(state, k, k_len) = @ccall libsgsample.sgs_sgld_set_inverse_mass_f32(state::Ptr{sgs_sgld_f32}, k::Ptr{Cfloat}, k_len::Csize_t)::sgs_status
sgs_sgld_inverse_mass_f32(state, out, out_len) = @ccall libsgsample.sgs_sgld_inverse_mass_f32(state::Ptr{sgs_sgld_f32}, out::Ptr{Cfloat}, out_len::Csize_t)::sgs_status
sgs_svgd_schedule_default(start, every) = @ccall libsgsample.sgs_svgd_schedule_default(start::UInt64, every::UInt64)::sgs_svgd_schedule
sgs_svgd_batch_size(state, p) = @ccall libsgsample.sgs_svgd_batch_size(state::Ptr{sgs_svgd}, p::Ptr{UInt64})::sgs_status
sgs_svgd_set_batch_size(state, p) = @ccall libsgsample.sgs_svgd_set_batch_size(state::Ptr{sgs_svgd}, p::UInt64)::sgs_status
sgs_svgd_run_scheduled(state, iterations, schedule, summary) = @ccall libsgsample.sgs_svgd_run_scheduled(state::Ptr{sgs_svgd}, iterations::UInt64, schedule::Ptr{sgs_svgd_schedule}, summary::Ptr{sgs_svgd_run_summary})::sgs_status
sgs_svgd_batch_size_f32(state, p) = @ccall libsgsample.sgs_svgd_batch_size_f32(state::Ptr{sgs_svgd_f32}, p::Ptr{UInt64})::sgs_status
sgs_svgd_set_batch_size_f32(state, p) = @ccall libsgsample.sgs_svgd_set_batch_size_f32(state::Ptr{sgs_svgd_f32}, p::UInt64)::sgs_status
sgs_svgd_run_scheduled_f32(state, iterations, schedule, summary) = @ccall libsgsample.sgs_svgd_run_scheduled_f32(state::Ptr{sgs_svgd_f32}, iterations::UInt64, schedule::Ptr{sgs_svgd_schedule}, summary::Ptr{sgs_svgd_run_summary})::sgs_status
sgs_svgd_set_scale(state, scale, scale_len) = @ccall libsgsample.sgs_svgd_set_scale(state::Ptr{sgs_svgd}, scale::Ptr{Cdouble}, scale_len::Csize_t)::sgs_status
sgs_svgd_set_scale_f32(state, scale, scale_len) = @ccall libsgsample.sgs_svgd_set_scale_f32(state::Ptr{sgs_svgd_f32}, scale::Ptr{Cfloat}, scale_len::Csize_t)::sgs_status
sgs_svgd_config_default(batch_size, step_size) = @ccall libsgsample.sgs_svgd_config_default(batch_size::UInt64, step_size::Cdouble)::sgs_svgd_config
sgs_svgd_workspace_len(n, d, config) = @ccall libsgsample.sgs_svgd_workspace_len(n::Csize_t, d::Csize_t, config::Ptr{sgs_svgd_config})::Csize_t
sgs_svgd_index_len(n) = @ccall libsgsample.sgs_svgd_index_len(n::Csize_t)::Csize_t
sgs_svgd_init(state, config, particles, n, d, workspace, workspace_len, index, index_len, gradient, gradients, user_data) = @ccall libsgsample.sgs_svgd_init(state::Ptr{sgs_svgd}, config::Ptr{sgs_svgd_config}, particles::Ptr{Cdouble}, n::Csize_t, d::Csize_t, workspace::Ptr{Cdouble}, workspace_len::Csize_t, index::Ptr{UInt32}, index_len::Csize_t, gradient::sgs_gradient_fn, gradients::sgs_gradients_fn, user_data::Ptr{Cvoid})::sgs_status
sgs_svgd_step(state, info) = @ccall libsgsample.sgs_svgd_step(state::Ptr{sgs_svgd}, info::Ptr{sgs_svgd_info})::sgs_status
sgs_svgd_run(state, iterations, summary) = @ccall libsgsample.sgs_svgd_run(state::Ptr{sgs_svgd}, iterations::UInt64, summary::Ptr{sgs_svgd_run_summary})::sgs_status
sgs_svgd_state_size() = @ccall libsgsample.sgs_svgd_state_size()::Csize_t
sgs_svgd_state_align() = @ccall libsgsample.sgs_svgd_state_align()::Csize_t
sgs_svgd_particles(state, out, out_len) = @ccall libsgsample.sgs_svgd_particles(state::Ptr{sgs_svgd}, out::Ptr{Cdouble}, out_len::Csize_t)::sgs_status
sgs_svgd_force(state, out, out_len) = @ccall libsgsample.sgs_svgd_force(state::Ptr{sgs_svgd}, out::Ptr{Cdouble}, out_len::Csize_t)::sgs_status
sgs_svgd_iterations(state, iterations) = @ccall libsgsample.sgs_svgd_iterations(state::Ptr{sgs_svgd}, iterations::Ptr{UInt64})::sgs_status
sgs_svgd_num_particles(state, n) = @ccall libsgsample.sgs_svgd_num_particles(state::Ptr{sgs_svgd}, n::Ptr{Csize_t})::sgs_status
sgs_svgd_dim(state, d) = @ccall libsgsample.sgs_svgd_dim(state::Ptr{sgs_svgd}, d::Ptr{Csize_t})::sgs_status
sgs_svgd_clear(state) = @ccall libsgsample.sgs_svgd_clear(state::Ptr{sgs_svgd})::sgs_status
sgs_svgd_copy(dst, particles, particles_len, workspace, workspace_len, index, index_len, src) = @ccall libsgsample.sgs_svgd_copy(dst::Ptr{sgs_svgd}, particles::Ptr{Cdouble}, particles_len::Csize_t, workspace::Ptr{Cdouble}, workspace_len::Csize_t, index::Ptr{UInt32}, index_len::Csize_t, src::Ptr{sgs_svgd})::sgs_status
sgs_svgd_workspace_len_f32(n, d, config) = @ccall libsgsample.sgs_svgd_workspace_len_f32(n::Csize_t, d::Csize_t, config::Ptr{sgs_svgd_config})::Csize_t
sgs_svgd_index_len_f32(n) = @ccall libsgsample.sgs_svgd_index_len_f32(n::Csize_t)::Csize_t
sgs_svgd_init_f32(state, config, particles, n, d, workspace, workspace_len, index, index_len, gradient, gradients, user_data) = @ccall libsgsample.sgs_svgd_init_f32(state::Ptr{sgs_svgd_f32}, config::Ptr{sgs_svgd_config}, particles::Ptr{Cfloat}, n::Csize_t, d::Csize_t, workspace::Ptr{Cfloat}, workspace_len::Csize_t, index::Ptr{UInt32}, index_len::Csize_t, gradient::sgs_gradient_fn_f32, gradients::sgs_gradients_fn_f32, user_data::Ptr{Cvoid})::sgs_status
sgs_svgd_step_f32(state, info) = @ccall libsgsample.sgs_svgd_step_f32(state::Ptr{sgs_svgd_f32}, info::Ptr{sgs_svgd_info})::sgs_status
sgs_svgd_run_f32(state, iterations, summary) = @ccall libsgsample.sgs_svgd_run_f32(state::Ptr{sgs_svgd_f32}, iterations::UInt64, summary::Ptr{sgs_svgd_run_summary})::sgs_status
sgs_svgd_state_size_f32() = @ccall libsgsample.sgs_svgd_state_size_f32()::Csize_t
sgs_svgd_state_align_f32() = @ccall libsgsample.sgs_svgd_state_align_f32()::Csize_t
sgs_svgd_particles_f32(state, out, out_len) = @ccall libsgsample.sgs_svgd_particles_f32(state::Ptr{sgs_svgd_f32}, out::Ptr{Cfloat}, out_len::Csize_t)::sgs_status
sgs_svgd_force_f32(state, out, out_len) = @ccall libsgsample.sgs_svgd_force_f32(state::Ptr{sgs_svgd_f32}, out::Ptr{Cfloat}, out_len::Csize_t)::sgs_status
sgs_svgd_iterations_f32(state, iterations) = @ccall libsgsample.sgs_svgd_iterations_f32(state::Ptr{sgs_svgd_f32}, iterations::Ptr{UInt64})::sgs_status
sgs_svgd_num_particles_f32(state, n) = @ccall libsgsample.sgs_svgd_num_particles_f32(state::Ptr{sgs_svgd_f32}, n::Ptr{Csize_t})::sgs_status
sgs_svgd_dim_f32(state, d) = @ccall libsgsample.sgs_svgd_dim_f32(state::Ptr{sgs_svgd_f32}, d::Ptr{Csize_t})::sgs_status
sgs_svgd_clear_f32(state) = @ccall libsgsample.sgs_svgd_clear_f32(state::Ptr{sgs_svgd_f32})::sgs_status
sgs_svgd_copy_f32(dst, particles, particles_len, workspace, workspace_len, index, index_len, src) = @ccall libsgsample.sgs_svgd_copy_f32(dst::Ptr{sgs_svgd_f32}, particles::Ptr{Cfloat}, particles_len::Csize_t, workspace::Ptr{Cfloat}, workspace_len::Csize_t, index::Ptr{UInt32}, index_len::Csize_t, src::Ptr{sgs_svgd_f32})::sgs_status
sgs_svgd_shard_ranges(n, batch_size, ranks, rank, particle_first, particle_count, slot_first, slot_count) = @ccall libsgsample.sgs_svgd_shard_ranges(n::Csize_t, batch_size::Csize_t, ranks::Csize_t, rank::Csize_t, particle_first::Ptr{Csize_t}, particle_count::Ptr{Csize_t}, slot_first::Ptr{Csize_t}, slot_count::Ptr{Csize_t})::sgs_status
sgs_svgd_shard_workspace_len(n, d, ranks, rank, config) = @ccall libsgsample.sgs_svgd_shard_workspace_len(n::Csize_t, d::Csize_t, ranks::Csize_t, rank::Csize_t, config::Ptr{sgs_svgd_config})::Csize_t
sgs_svgd_shard_index_len(n, ranks, rank, config) = @ccall libsgsample.sgs_svgd_shard_index_len(n::Csize_t, ranks::Csize_t, rank::Csize_t, config::Ptr{sgs_svgd_config})::Csize_t
sgs_svgd_shard_state_size() = @ccall libsgsample.sgs_svgd_shard_state_size()::Csize_t
sgs_svgd_shard_state_align() = @ccall libsgsample.sgs_svgd_shard_state_align()::Csize_t
sgs_svgd_shard_init(state, config, n, d, ranks, rank, particles, particles_len, workspace, workspace_len, index, index_len, gradient, gradients, user_data) = @ccall libsgsample.sgs_svgd_shard_init(state::Ptr{sgs_svgd_shard}, config::Ptr{sgs_svgd_config}, n::Csize_t, d::Csize_t, ranks::Csize_t, rank::Csize_t, particles::Ptr{Cdouble}, particles_len::Csize_t, workspace::Ptr{Cdouble}, workspace_len::Csize_t, index::Ptr{UInt32}, index_len::Csize_t, gradient::sgs_gradient_fn, gradients::sgs_gradients_fn, user_data::Ptr{Cvoid})::sgs_status
sgs_svgd_shard_begin(state, out_idx, out_idx_len, out_rows, out_rows_len, counts, counts_len) = @ccall libsgsample.sgs_svgd_shard_begin(state::Ptr{sgs_svgd_shard}, out_idx::Ptr{UInt32}, out_idx_len::Csize_t, out_rows::Ptr{Cdouble}, out_rows_len::Csize_t, counts::Ptr{Csize_t}, counts_len::Csize_t)::sgs_status
sgs_svgd_shard_forces(state, in_idx, in_idx_len, in_rows, in_rows_len, out_idx, out_idx_len, out_rows, out_rows_len, counts, counts_len) = @ccall libsgsample.sgs_svgd_shard_forces(state::Ptr{sgs_svgd_shard}, in_idx::Ptr{UInt32}, in_idx_len::Csize_t, in_rows::Ptr{Cdouble}, in_rows_len::Csize_t, out_idx::Ptr{UInt32}, out_idx_len::Csize_t, out_rows::Ptr{Cdouble}, out_rows_len::Csize_t, counts::Ptr{Csize_t}, counts_len::Csize_t)::sgs_status
sgs_svgd_shard_finish(state, in_idx, in_idx_len, in_rows, in_rows_len, partial) = @ccall libsgsample.sgs_svgd_shard_finish(state::Ptr{sgs_svgd_shard}, in_idx::Ptr{UInt32}, in_idx_len::Csize_t, in_rows::Ptr{Cdouble}, in_rows_len::Csize_t, partial::Ptr{sgs_svgd_shard_partial})::sgs_status
sgs_svgd_shard_forces_parts(state, parts, parts_len, out_idx, out_idx_len, out_rows, out_rows_len, counts, counts_len) = @ccall libsgsample.sgs_svgd_shard_forces_parts(state::Ptr{sgs_svgd_shard}, parts::Ptr{sgs_svgd_shard_records}, parts_len::Csize_t, out_idx::Ptr{UInt32}, out_idx_len::Csize_t, out_rows::Ptr{Cdouble}, out_rows_len::Csize_t, counts::Ptr{Csize_t}, counts_len::Csize_t)::sgs_status
sgs_svgd_shard_finish_parts(state, parts, parts_len, partial) = @ccall libsgsample.sgs_svgd_shard_finish_parts(state::Ptr{sgs_svgd_shard}, parts::Ptr{sgs_svgd_shard_records}, parts_len::Csize_t, partial::Ptr{sgs_svgd_shard_partial})::sgs_status
sgs_svgd_shard_commit(state, partials, partials_len, info) = @ccall libsgsample.sgs_svgd_shard_commit(state::Ptr{sgs_svgd_shard}, partials::Ptr{sgs_svgd_shard_partial}, partials_len::Csize_t, info::Ptr{sgs_svgd_info})::sgs_status
sgs_svgd_shard_cancel(state) = @ccall libsgsample.sgs_svgd_shard_cancel(state::Ptr{sgs_svgd_shard})::sgs_status
sgs_svgd_shard_iterations(state, iterations) = @ccall libsgsample.sgs_svgd_shard_iterations(state::Ptr{sgs_svgd_shard}, iterations::Ptr{UInt64})::sgs_status
sgs_svgd_shard_clear(state) = @ccall libsgsample.sgs_svgd_shard_clear(state::Ptr{sgs_svgd_shard})::sgs_status
sgs_svgd_shard_workspace_len_f32(n, d, ranks, rank, config) = @ccall libsgsample.sgs_svgd_shard_workspace_len_f32(n::Csize_t, d::Csize_t, ranks::Csize_t, rank::Csize_t, config::Ptr{sgs_svgd_config})::Csize_t
sgs_svgd_shard_index_len_f32(n, ranks, rank, config) = @ccall libsgsample.sgs_svgd_shard_index_len_f32(n::Csize_t, ranks::Csize_t, rank::Csize_t, config::Ptr{sgs_svgd_config})::Csize_t
sgs_svgd_shard_state_size_f32() = @ccall libsgsample.sgs_svgd_shard_state_size_f32()::Csize_t
sgs_svgd_shard_state_align_f32() = @ccall libsgsample.sgs_svgd_shard_state_align_f32()::Csize_t
sgs_svgd_shard_init_f32(state, config, n, d, ranks, rank, particles, particles_len, workspace, workspace_len, index, index_len, gradient, gradients, user_data) = @ccall libsgsample.sgs_svgd_shard_init_f32(state::Ptr{sgs_svgd_shard_f32}, config::Ptr{sgs_svgd_config}, n::Csize_t, d::Csize_t, ranks::Csize_t, rank::Csize_t, particles::Ptr{Cfloat}, particles_len::Csize_t, workspace::Ptr{Cfloat}, workspace_len::Csize_t, index::Ptr{UInt32}, index_len::Csize_t, gradient::sgs_gradient_fn_f32, gradients::sgs_gradients_fn_f32, user_data::Ptr{Cvoid})::sgs_status
sgs_svgd_shard_begin_f32(state, out_idx, out_idx_len, out_rows, out_rows_len, counts, counts_len) = @ccall libsgsample.sgs_svgd_shard_begin_f32(state::Ptr{sgs_svgd_shard_f32}, out_idx::Ptr{UInt32}, out_idx_len::Csize_t, out_rows::Ptr{Cfloat}, out_rows_len::Csize_t, counts::Ptr{Csize_t}, counts_len::Csize_t)::sgs_status
sgs_svgd_shard_forces_f32(state, in_idx, in_idx_len, in_rows, in_rows_len, out_idx, out_idx_len, out_rows, out_rows_len, counts, counts_len) = @ccall libsgsample.sgs_svgd_shard_forces_f32(state::Ptr{sgs_svgd_shard_f32}, in_idx::Ptr{UInt32}, in_idx_len::Csize_t, in_rows::Ptr{Cfloat}, in_rows_len::Csize_t, out_idx::Ptr{UInt32}, out_idx_len::Csize_t, out_rows::Ptr{Cfloat}, out_rows_len::Csize_t, counts::Ptr{Csize_t}, counts_len::Csize_t)::sgs_status
sgs_svgd_shard_finish_f32(state, in_idx, in_idx_len, in_rows, in_rows_len, partial) = @ccall libsgsample.sgs_svgd_shard_finish_f32(state::Ptr{sgs_svgd_shard_f32}, in_idx::Ptr{UInt32}, in_idx_len::Csize_t, in_rows::Ptr{Cfloat}, in_rows_len::Csize_t, partial::Ptr{sgs_svgd_shard_partial})::sgs_status
sgs_svgd_shard_forces_parts_f32(state, parts, parts_len, out_idx, out_idx_len, out_rows, out_rows_len, counts, counts_len) = @ccall libsgsample.sgs_svgd_shard_forces_parts_f32(state::Ptr{sgs_svgd_shard_f32}, parts::Ptr{sgs_svgd_shard_records_f32}, parts_len::Csize_t, out_idx::Ptr{UInt32}, out_idx_len::Csize_t, out_rows::Ptr{Cfloat}, out_rows_len::Csize_t, counts::Ptr{Csize_t}, counts_len::Csize_t)::sgs_status
sgs_svgd_shard_finish_parts_f32(state, parts, parts_len, partial) = @ccall libsgsample.sgs_svgd_shard_finish_parts_f32(state::Ptr{sgs_svgd_shard_f32}, parts::Ptr{sgs_svgd_shard_records_f32}, parts_len::Csize_t, partial::Ptr{sgs_svgd_shard_partial})::sgs_status
sgs_svgd_shard_commit_f32(state, partials, partials_len, info) = @ccall libsgsample.sgs_svgd_shard_commit_f32(state::Ptr{sgs_svgd_shard_f32}, partials::Ptr{sgs_svgd_shard_partial}, partials_len::Csize_t, info::Ptr{sgs_svgd_info})::sgs_status
sgs_svgd_shard_cancel_f32(state) = @ccall libsgsample.sgs_svgd_shard_cancel_f32(state::Ptr{sgs_svgd_shard_f32})::sgs_status
sgs_svgd_shard_iterations_f32(state, iterations) = @ccall libsgsample.sgs_svgd_shard_iterations_f32(state::Ptr{sgs_svgd_shard_f32}, iterations::Ptr{UInt64})::sgs_status
sgs_svgd_shard_clear_f32(state) = @ccall libsgsample.sgs_svgd_shard_clear_f32(state::Ptr{sgs_svgd_shard_f32})::sgs_status
sgs_amagold_warmup_report(state, out) = @ccall libsgsample.sgs_amagold_warmup_report(state::Ptr{sgs_amagold}, out::Ptr{sgs_warmup_report})::sgs_status
sgs_amagold_warmup_compare(states, k, out, out_len) = @ccall libsgsample.sgs_amagold_warmup_compare(states::Ptr{Ptr{sgs_amagold}}, k::Csize_t, out::Ptr{sgs_warmup_report}, out_len::Csize_t)::sgs_status
sgs_amagold_warmup_report_f32(state, out) = @ccall libsgsample.sgs_amagold_warmup_report_f32(state::Ptr{sgs_amagold_f32}, out::Ptr{sgs_warmup_report})::sgs_status
sgs_amagold_warmup_compare_f32(states, k, out, out_len) = @ccall libsgsample.sgs_amagold_warmup_compare_f32(states::Ptr{Ptr{sgs_amagold_f32}}, k::Csize_t, out::Ptr{sgs_warmup_report}, out_len::Csize_t)::sgs_status
sgs_draws_scratch_len(chains, draws) = @ccall libsgsample.sgs_draws_scratch_len(chains::Csize_t, draws::Csize_t)::Csize_t
sgs_draws_summary(draws, chains, n, dim, scratch, scratch_len, out, out_len) = @ccall libsgsample.sgs_draws_summary(draws::Ptr{Cdouble}, chains::Csize_t, n::Csize_t, dim::Csize_t, scratch::Ptr{Cdouble}, scratch_len::Csize_t, out::Ptr{sgs_draws_stats}, out_len::Csize_t)::sgs_status
sgs_draws_rhat_rank(draws, chains, n, dim, scratch, scratch_len, out, out_len) = @ccall libsgsample.sgs_draws_rhat_rank(draws::Ptr{Cdouble}, chains::Csize_t, n::Csize_t, dim::Csize_t, scratch::Ptr{Cdouble}, scratch_len::Csize_t, out::Ptr{Cdouble}, out_len::Csize_t)::sgs_status
sgs_draws_ess_bulk(draws, chains, n, dim, scratch, scratch_len, out, out_len) = @ccall libsgsample.sgs_draws_ess_bulk(draws::Ptr{Cdouble}, chains::Csize_t, n::Csize_t, dim::Csize_t, scratch::Ptr{Cdouble}, scratch_len::Csize_t, out::Ptr{Cdouble}, out_len::Csize_t)::sgs_status
sgs_draws_ess_tail(draws, chains, n, dim, scratch, scratch_len, out, out_len) = @ccall libsgsample.sgs_draws_ess_tail(draws::Ptr{Cdouble}, chains::Csize_t, n::Csize_t, dim::Csize_t, scratch::Ptr{Cdouble}, scratch_len::Csize_t, out::Ptr{Cdouble}, out_len::Csize_t)::sgs_status
sgs_draws_mcse_quantile(draws, chains, n, dim, prob, scratch, scratch_len, out, out_len) = @ccall libsgsample.sgs_draws_mcse_quantile(draws::Ptr{Cdouble}, chains::Csize_t, n::Csize_t, dim::Csize_t, prob::Cdouble, scratch::Ptr{Cdouble}, scratch_len::Csize_t, out::Ptr{Cdouble}, out_len::Csize_t)::sgs_status
sgs_draws_summary_f32(draws, chains, n, dim, scratch, scratch_len, out, out_len) = @ccall libsgsample.sgs_draws_summary_f32(draws::Ptr{Cfloat}, chains::Csize_t, n::Csize_t, dim::Csize_t, scratch::Ptr{Cdouble}, scratch_len::Csize_t, out::Ptr{sgs_draws_stats}, out_len::Csize_t)::sgs_status
sgs_draws_rhat_rank_f32(draws, chains, n, dim, scratch, scratch_len, out, out_len) = @ccall libsgsample.sgs_draws_rhat_rank_f32(draws::Ptr{Cfloat}, chains::Csize_t, n::Csize_t, dim::Csize_t, scratch::Ptr{Cdouble}, scratch_len::Csize_t, out::Ptr{Cdouble}, out_len::Csize_t)::sgs_status
sgs_draws_ess_bulk_f32(draws, chains, n, dim, scratch, scratch_len, out, out_len) = @ccall libsgsample.sgs_draws_ess_bulk_f32(draws::Ptr{Cfloat}, chains::Csize_t, n::Csize_t, dim::Csize_t, scratch::Ptr{Cdouble}, scratch_len::Csize_t, out::Ptr{Cdouble}, out_len::Csize_t)::sgs_status
sgs_draws_ess_tail_f32(draws, chains, n, dim, scratch, scratch_len, out, out_len) = @ccall libsgsample.sgs_draws_ess_tail_f32(draws::Ptr{Cfloat}, chains::Csize_t, n::Csize_t, dim::Csize_t, scratch::Ptr{Cdouble}, scratch_len::Csize_t, out::Ptr{Cdouble}, out_len::Csize_t)::sgs_status
sgs_draws_mcse_quantile_f32(draws, chains, n, dim, prob, scratch, scratch_len, out, out_len) = @ccall libsgsample.sgs_draws_mcse_quantile_f32(draws::Ptr{Cfloat}, chains::Csize_t, n::Csize_t, dim::Csize_t, prob::Cdouble, scratch::Ptr{Cdouble}, scratch_len::Csize_t, out::Ptr{Cdouble}, out_len::Csize_t)::sgs_status
sgs_draws_diagnose(stats, dim, chains, divergences, verdict) = @ccall libsgsample.sgs_draws_diagnose(stats::Ptr{sgs_draws_stats}, dim::Csize_t, chains::Csize_t, divergences::UInt64, verdict::Ptr{sgs_draws_verdict})::sgs_status
sgs_ksd_full(x, n, d, grad, c, beta, ksd_squared) = @ccall libsgsample.sgs_ksd_full(x::Ptr{Cdouble}, n::Csize_t, d::Csize_t, grad::Ptr{Cdouble}, c::Cdouble, beta::Cdouble, ksd_squared::Ptr{Cdouble})::sgs_status
sgs_ksd_batch(x, n, d, grad, p, c, beta, seed, stream, index, index_len, ksd_squared) = @ccall libsgsample.sgs_ksd_batch(x::Ptr{Cdouble}, n::Csize_t, d::Csize_t, grad::Ptr{Cdouble}, p::Csize_t, c::Cdouble, beta::Cdouble, seed::UInt64, stream::UInt64, index::Ptr{UInt32}, index_len::Csize_t, ksd_squared::Ptr{Cdouble})::sgs_status
sgs_ksd_full_f32(x, n, d, grad, c, beta, ksd_squared) = @ccall libsgsample.sgs_ksd_full_f32(x::Ptr{Cfloat}, n::Csize_t, d::Csize_t, grad::Ptr{Cfloat}, c::Cdouble, beta::Cdouble, ksd_squared::Ptr{Cdouble})::sgs_status
sgs_ksd_batch_f32(x, n, d, grad, p, c, beta, seed, stream, index, index_len, ksd_squared) = @ccall libsgsample.sgs_ksd_batch_f32(x::Ptr{Cfloat}, n::Csize_t, d::Csize_t, grad::Ptr{Cfloat}, p::Csize_t, c::Cdouble, beta::Cdouble, seed::UInt64, stream::UInt64, index::Ptr{UInt32}, index_len::Csize_t, ksd_squared::Ptr{Cdouble})::sgs_status
sgs_stats_state_size(d, bytes) = @ccall libsgsample.sgs_stats_state_size(d::Csize_t, bytes::Ptr{Csize_t})::sgs_status
sgs_stats_state_align() = @ccall libsgsample.sgs_stats_state_align()::Csize_t
sgs_stats_init(state, bytes, d) = @ccall libsgsample.sgs_stats_init(state::Ptr{sgs_stats}, bytes::Csize_t, d::Csize_t)::sgs_status
sgs_stats_clear(state) = @ccall libsgsample.sgs_stats_clear(state::Ptr{sgs_stats})::sgs_status
sgs_stats_push(state, x, d) = @ccall libsgsample.sgs_stats_push(state::Ptr{sgs_stats}, x::Ptr{Cdouble}, d::Csize_t)::sgs_status
sgs_stats_push_f32(state, x, d) = @ccall libsgsample.sgs_stats_push_f32(state::Ptr{sgs_stats}, x::Ptr{Cfloat}, d::Csize_t)::sgs_status
sgs_stats_count(state, count) = @ccall libsgsample.sgs_stats_count(state::Ptr{sgs_stats}, count::Ptr{UInt64})::sgs_status
sgs_stats_mean(state, out, out_len) = @ccall libsgsample.sgs_stats_mean(state::Ptr{sgs_stats}, out::Ptr{Cdouble}, out_len::Csize_t)::sgs_status
sgs_stats_variance(state, out, out_len) = @ccall libsgsample.sgs_stats_variance(state::Ptr{sgs_stats}, out::Ptr{Cdouble}, out_len::Csize_t)::sgs_status
sgs_stats_ess(state, out, out_len) = @ccall libsgsample.sgs_stats_ess(state::Ptr{sgs_stats}, out::Ptr{Cdouble}, out_len::Csize_t)::sgs_status
sgs_stats_ess_flags(state, out, out_len) = @ccall libsgsample.sgs_stats_ess_flags(state::Ptr{sgs_stats}, out::Ptr{UInt32}, out_len::Csize_t)::sgs_status
sgs_stats_mcse(state, out, out_len) = @ccall libsgsample.sgs_stats_mcse(state::Ptr{sgs_stats}, out::Ptr{Cdouble}, out_len::Csize_t)::sgs_status
sgs_stats_rhat(chains, k, out, out_len) = @ccall libsgsample.sgs_stats_rhat(chains::Ptr{Ptr{sgs_stats}}, k::Csize_t, out::Ptr{Cdouble}, out_len::Csize_t)::sgs_status
sgs_stats_ess_chains(chains, k, out, out_len) = @ccall libsgsample.sgs_stats_ess_chains(chains::Ptr{Ptr{sgs_stats}}, k::Csize_t, out::Ptr{Cdouble}, out_len::Csize_t)::sgs_status
sgs_stats_ess_chains_flags(chains, k, out, out_len) = @ccall libsgsample.sgs_stats_ess_chains_flags(chains::Ptr{Ptr{sgs_stats}}, k::Csize_t, out::Ptr{UInt32}, out_len::Csize_t)::sgs_status
sgs_svgd_begin(state) = @ccall libsgsample.sgs_svgd_begin(state::Ptr{sgs_svgd})::sgs_status
sgs_svgd_gradients_range(state, first, end) = @ccall libsgsample.sgs_svgd_gradients_range(state::Ptr{sgs_svgd}, first::Csize_t, end::Csize_t)::sgs_status
sgs_svgd_batches_range(state, first, end) = @ccall libsgsample.sgs_svgd_batches_range(state::Ptr{sgs_svgd}, first::Csize_t, end::Csize_t)::sgs_status
sgs_svgd_forces_get(state, first, end, out, out_len) = @ccall libsgsample.sgs_svgd_forces_get(state::Ptr{sgs_svgd}, first::Csize_t, end::Csize_t, out::Ptr{Cdouble}, out_len::Csize_t)::sgs_status
sgs_svgd_forces_put(state, first, end, forces, forces_len) = @ccall libsgsample.sgs_svgd_forces_put(state::Ptr{sgs_svgd}, first::Csize_t, end::Csize_t, forces::Ptr{Cdouble}, forces_len::Csize_t)::sgs_status
sgs_svgd_moves_get(state, first, end, out, out_len) = @ccall libsgsample.sgs_svgd_moves_get(state::Ptr{sgs_svgd}, first::Csize_t, end::Csize_t, out::Ptr{Cdouble}, out_len::Csize_t)::sgs_status
sgs_svgd_moves_put(state, first, end, moves, moves_len) = @ccall libsgsample.sgs_svgd_moves_put(state::Ptr{sgs_svgd}, first::Csize_t, end::Csize_t, moves::Ptr{Cdouble}, moves_len::Csize_t)::sgs_status
sgs_svgd_move_width(state, width) = @ccall libsgsample.sgs_svgd_move_width(state::Ptr{sgs_svgd}, width::Ptr{Csize_t})::sgs_status
sgs_svgd_finish(state, info) = @ccall libsgsample.sgs_svgd_finish(state::Ptr{sgs_svgd}, info::Ptr{sgs_svgd_info})::sgs_status
sgs_svgd_cancel(state) = @ccall libsgsample.sgs_svgd_cancel(state::Ptr{sgs_svgd})::sgs_status
sgs_svgd_num_batches(state, batches) = @ccall libsgsample.sgs_svgd_num_batches(state::Ptr{sgs_svgd}, batches::Ptr{Csize_t})::sgs_status
sgs_svgd_batch_rows(state, batch, first, end) = @ccall libsgsample.sgs_svgd_batch_rows(state::Ptr{sgs_svgd}, batch::Csize_t, first::Ptr{Csize_t}, end::Ptr{Csize_t})::sgs_status
sgs_svgd_begin_f32(state) = @ccall libsgsample.sgs_svgd_begin_f32(state::Ptr{sgs_svgd_f32})::sgs_status
sgs_svgd_gradients_range_f32(state, first, end) = @ccall libsgsample.sgs_svgd_gradients_range_f32(state::Ptr{sgs_svgd_f32}, first::Csize_t, end::Csize_t)::sgs_status
sgs_svgd_batches_range_f32(state, first, end) = @ccall libsgsample.sgs_svgd_batches_range_f32(state::Ptr{sgs_svgd_f32}, first::Csize_t, end::Csize_t)::sgs_status
sgs_svgd_forces_get_f32(state, first, end, out, out_len) = @ccall libsgsample.sgs_svgd_forces_get_f32(state::Ptr{sgs_svgd_f32}, first::Csize_t, end::Csize_t, out::Ptr{Cfloat}, out_len::Csize_t)::sgs_status
sgs_svgd_forces_put_f32(state, first, end, forces, forces_len) = @ccall libsgsample.sgs_svgd_forces_put_f32(state::Ptr{sgs_svgd_f32}, first::Csize_t, end::Csize_t, forces::Ptr{Cfloat}, forces_len::Csize_t)::sgs_status
sgs_svgd_moves_get_f32(state, first, end, out, out_len) = @ccall libsgsample.sgs_svgd_moves_get_f32(state::Ptr{sgs_svgd_f32}, first::Csize_t, end::Csize_t, out::Ptr{Cfloat}, out_len::Csize_t)::sgs_status
sgs_svgd_moves_put_f32(state, first, end, moves, moves_len) = @ccall libsgsample.sgs_svgd_moves_put_f32(state::Ptr{sgs_svgd_f32}, first::Csize_t, end::Csize_t, moves::Ptr{Cfloat}, moves_len::Csize_t)::sgs_status
sgs_svgd_move_width_f32(state, width) = @ccall libsgsample.sgs_svgd_move_width_f32(state::Ptr{sgs_svgd_f32}, width::Ptr{Csize_t})::sgs_status
sgs_svgd_finish_f32(state, info) = @ccall libsgsample.sgs_svgd_finish_f32(state::Ptr{sgs_svgd_f32}, info::Ptr{sgs_svgd_info})::sgs_status
sgs_svgd_cancel_f32(state) = @ccall libsgsample.sgs_svgd_cancel_f32(state::Ptr{sgs_svgd_f32})::sgs_status
sgs_svgd_num_batches_f32(state, batches) = @ccall libsgsample.sgs_svgd_num_batches_f32(state::Ptr{sgs_svgd_f32}, batches::Ptr{Csize_t})::sgs_status
sgs_svgd_batch_rows_f32(state, batch, first, end) = @ccall libsgsample.sgs_svgd_batch_rows_f32(state::Ptr{sgs_svgd_f32}, batch::Csize_t, first::Ptr{Csize_t}, end::Ptr{Csize_t})::sgs_status
