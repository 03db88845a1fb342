"""
    SGSample

AMAGOLD, SGHMC, SGLD, TunaMH and SVGD / RBM-SVGD from Julia through the sgsample C library
(`libsgsample`, the same C ABI as `include/sgsample.h`). The library is found at
`ENV["SGSAMPLE_LIB"]` (read when the package is precompiled) or, by default, at
`target/release/libsgsample.so` of the repository this package sits in
(`cargo build --release -p sgsample-capi`).

Layouts, constants and one `@ccall` wrapper per C function are in `generated.jl`, written
mechanically from the header by `gen/generate.py`. This file adds the Julia interface:

- callbacks are Julia functions (`energy(θ)`, `grad(θ, seed)`, `grads(X, seed)`) passed to the
  library through `@cfunction` of non-closure trampolines with the user's closures as `user_data`
  (the pattern of BridgeStan and Cuba.jl); all buffers are held with `GC.@preserve` during calls;
- an exception inside a callback makes it return `SGS_CB_ABORT`; the sampler stops with the chain at
  its last completed iteration and the exception is rethrown (with its backtrace, as a
  `CapturedException`'s original). `throw(OutOfDomain())` returns `SGS_CB_REJECT`;
- draws are returned **column-major `d × n`** (column k is draw k), and particles are `d × N`
  matrices (column i is particle i): the memory of a Julia `d × N` matrix is exactly the C API's
  row-major `N × d` array, so nothing is transposed or copied.
"""
module SGSample

using Libdl

const libsgsample = get(ENV, "SGSAMPLE_LIB",
    normpath(joinpath(@__DIR__, "..", "..", "..", "..", "target", "release",
                      "libsgsample." * Libdl.dlext)))

include("generated.jl")

export AMAGOLD, SGHMC, SGLD, TunaMH, evaluations, SVGD, Raw, run!, sample, svgd!, particles, minibatch,
       SGSampleError, OutOfDomain, RunInfo, Batch
# AMAGOLD's warm-up API (below the chains)
export step_size, set_step_size!, inverse_mass, set_inverse_mass!, inverse_mass_dense,
       set_inverse_mass_dense!, warmup_report, warmup_compare

"""A non-OK `sgs_status` from the library."""
struct SGSampleError <: Exception
    status::Int32
    where::String
end

function status_name(st)
    for name in names(@__MODULE__; all=true)
        s = String(name)
        if startswith(s, "SGS_ERR_") || s == "SGS_OK"
            v = getfield(@__MODULE__, name)
            v isa Int32 && v == st && return s
        end
    end
    return "unknown status"
end

Base.showerror(io::IO, e::SGSampleError) =
    print(io, e.where, ": ", status_name(e.status), " (", e.status, "): ",
          unsafe_string(sgs_status_str(e.status)))

"""Throw inside a callback: the point is outside the target's domain (`SGS_CB_REJECT`)."""
struct OutOfDomain <: Exception end

check(st, where) = st == SGS_OK ? nothing : throw(SGSampleError(st, where))

version() = unsafe_string(sgs_version())

# ---------------------------------------------------------------------------------------------
# Callbacks: the closures travel as user_data; the trampolines are plain top-level functions.

mutable struct Callbacks
    energy::Any
    grad::Any
    grads::Any
    err::Any          # the first exception a callback raised, with its backtrace
    last::Any         # the last one rethrown (a CapturedException: exception + backtrace)
    energy_batch::Any # Batch: energy(Θ::d × k) -> k energies (or (energies, rejected))
    grad_batch::Any   # Batch: grad(Θ::d × k, seeds::Vector{UInt64}) -> d × k (or (G, rejected))
    differences::Any  # TunaMH: differences(θ, θ′, idx::Vector{Int}) -> U_i(θ′) − U_i(θ) per index
    exact::Any        # TunaMH: exact(θ, θ′) -> U₀(θ′) − U₀(θ), or nothing
end
Callbacks() = Callbacks(nothing, nothing, nothing, nothing, nothing, nothing, nothing, nothing,
                        nothing)

function fail!(cb::Callbacks, e)
    e isa OutOfDomain && return Int32(SGS_CB_REJECT)
    cb.err = CapturedException(e, catch_backtrace())
    return Int32(SGS_CB_ABORT)
end

function energy_tramp(ud::Ptr{Cvoid}, theta::Ptr{T}, d::Csize_t, u::Ptr{Cdouble}) where {T}
    cb = unsafe_pointer_to_objref(ud)::Callbacks
    try
        x = copy(unsafe_wrap(Array, theta, Int(d)))
        unsafe_store!(u, Float64(cb.energy(x)))
        return Int32(SGS_CB_OK)
    catch e
        return fail!(cb, e)
    end
end

function grad_tramp(ud::Ptr{Cvoid}, x::Ptr{T}, d::Csize_t, seed::UInt64, g::Ptr{T}) where {T}
    cb = unsafe_pointer_to_objref(ud)::Callbacks
    try
        v = convert(Vector{T}, vec(cb.grad(copy(unsafe_wrap(Array, x, Int(d))), seed)))
        length(v) == d || throw(DimensionMismatch("grad returned $(length(v)) values, expected $d"))
        GC.@preserve v unsafe_copyto!(g, pointer(v), Int(d))
        return Int32(SGS_CB_OK)
    catch e
        return fail!(cb, e)
    end
end

# xs: the C API's row-major n × d = a Julia d × n matrix (column i is particle i).
function grads_tramp(ud::Ptr{Cvoid}, xs::Ptr{T}, n::Csize_t, d::Csize_t, seed::UInt64,
                     g::Ptr{T}) where {T}
    cb = unsafe_pointer_to_objref(ud)::Callbacks
    try
        X = copy(unsafe_wrap(Array, xs, (Int(d), Int(n))))
        G = convert(Matrix{T}, cb.grads(X, seed))
        size(G) == (d, n) || throw(DimensionMismatch("grads returned $(size(G)), expected ($d, $n)"))
        GC.@preserve G unsafe_copyto!(g, pointer(G), Int(n * d))
        return Int32(SGS_CB_OK)
    catch e
        return fail!(cb, e)
    end
end

energy_ptr(::Type{Float64}) = @cfunction(energy_tramp, Int32, (Ptr{Cvoid}, Ptr{Cdouble}, Csize_t, Ptr{Cdouble}))
energy_ptr(::Type{Float32}) = @cfunction(energy_tramp, Int32, (Ptr{Cvoid}, Ptr{Cfloat}, Csize_t, Ptr{Cdouble}))
grad_ptr(::Type{Float64}) = @cfunction(grad_tramp, Int32, (Ptr{Cvoid}, Ptr{Cdouble}, Csize_t, UInt64, Ptr{Cdouble}))
grad_ptr(::Type{Float32}) = @cfunction(grad_tramp, Int32, (Ptr{Cvoid}, Ptr{Cfloat}, Csize_t, UInt64, Ptr{Cfloat}))
grads_ptr(::Type{Float64}) = @cfunction(grads_tramp, Int32, (Ptr{Cvoid}, Ptr{Cdouble}, Csize_t, Csize_t, UInt64, Ptr{Cdouble}))
grads_ptr(::Type{Float32}) = @cfunction(grads_tramp, Int32, (Ptr{Cvoid}, Ptr{Cfloat}, Csize_t, Csize_t, UInt64, Ptr{Cfloat}))

# TunaMH's callbacks (`sgs_differences_fn`, `sgs_exact_difference_fn`): the library's 0-based
# term indices are passed to Julia 1-based (term i of the data is `data[i]`).
function differences_tramp(ud::Ptr{Cvoid}, theta::Ptr{T}, proposal::Ptr{T}, d::Csize_t,
                           indices::Ptr{UInt64}, count::Csize_t, out::Ptr{Cdouble}) where {T}
    cb = unsafe_pointer_to_objref(ud)::Callbacks
    try
        x = copy(unsafe_wrap(Array, theta, Int(d)))
        y = copy(unsafe_wrap(Array, proposal, Int(d)))
        idx = [Int(i) + 1 for i in unsafe_wrap(Array, indices, Int(count))]
        v = convert(Vector{Float64}, vec(cb.differences(x, y, idx)))
        length(v) == count ||
            throw(DimensionMismatch("differences returned $(length(v)) values, expected $count"))
        GC.@preserve v unsafe_copyto!(out, pointer(v), Int(count))
        return Int32(SGS_CB_OK)
    catch e
        return fail!(cb, e)
    end
end

function exact_tramp(ud::Ptr{Cvoid}, theta::Ptr{T}, proposal::Ptr{T}, d::Csize_t,
                     out::Ptr{Cdouble}) where {T}
    cb = unsafe_pointer_to_objref(ud)::Callbacks
    try
        x = copy(unsafe_wrap(Array, theta, Int(d)))
        y = copy(unsafe_wrap(Array, proposal, Int(d)))
        unsafe_store!(out, Float64(cb.exact(x, y)))
        return Int32(SGS_CB_OK)
    catch e
        return fail!(cb, e)
    end
end

differences_ptr(::Type{Float64}) = @cfunction(differences_tramp, Int32, (Ptr{Cvoid}, Ptr{Cdouble}, Ptr{Cdouble}, Csize_t, Ptr{UInt64}, Csize_t, Ptr{Cdouble}))
differences_ptr(::Type{Float32}) = @cfunction(differences_tramp, Int32, (Ptr{Cvoid}, Ptr{Cfloat}, Ptr{Cfloat}, Csize_t, Ptr{UInt64}, Csize_t, Ptr{Cdouble}))
exact_ptr(::Type{Float64}) = @cfunction(exact_tramp, Int32, (Ptr{Cvoid}, Ptr{Cdouble}, Ptr{Cdouble}, Csize_t, Ptr{Cdouble}))
exact_ptr(::Type{Float32}) = @cfunction(exact_tramp, Int32, (Ptr{Cvoid}, Ptr{Cfloat}, Ptr{Cfloat}, Csize_t, Ptr{Cdouble}))

# Batched callbacks (`sgs_batch_energy_fn`, `sgs_batch_gradient_fn`): the C API's row-major
# k × d rows are a Julia d × k matrix (column r is row r's point), passed as a copy. A function
# may return its values alone or `(values, rejected)` with `rejected[r]` true for a row outside
# the domain (SGS_CB_REJECT for that row). Any exception aborts the whole batch (rethrown).
function split_rejects(r, k)
    v, rej = r isa Tuple ? r : (r, nothing)
    rej === nothing || length(rej) == k ||
        throw(DimensionMismatch("rejected mask has $(length(rej)) entries, expected $k"))
    return v, rej
end

function store_rejects!(st::Ptr{Int32}, rej, k)
    rej === nothing && return nothing
    for i in 1:k
        rej[i] && unsafe_store!(st, Int32(SGS_CB_REJECT), i)
    end
end

# A batched callback's exception: kept for the rethrow, the whole batch aborted (a single row is
# rejected by returning `(values, rejected)`, not by OutOfDomain).
function abort!(cb::Callbacks, e)
    cb.err = CapturedException(e, catch_backtrace())
    return Int32(SGS_CB_ABORT)
end

function batch_energy_tramp(ud::Ptr{Cvoid}, theta::Ptr{T}, k::Csize_t, d::Csize_t,
                            chains::Ptr{Csize_t}, u::Ptr{Cdouble}, st::Ptr{Int32}) where {T}
    cb = unsafe_pointer_to_objref(ud)::Callbacks
    try
        X = copy(unsafe_wrap(Array, theta, (Int(d), Int(k))))
        v, rej = split_rejects(cb.energy_batch(X), Int(k))
        length(v) == k || throw(DimensionMismatch("energy returned $(length(v)) values, expected $k"))
        for i in 1:Int(k)
            unsafe_store!(u, Float64(v[i]), i)
        end
        store_rejects!(st, rej, Int(k))
        return Int32(SGS_CB_OK)
    catch e
        return abort!(cb, e)
    end
end

function batch_grad_tramp(ud::Ptr{Cvoid}, x::Ptr{T}, k::Csize_t, d::Csize_t, seeds::Ptr{UInt64},
                          chains::Ptr{Csize_t}, g::Ptr{T}, st::Ptr{Int32}) where {T}
    cb = unsafe_pointer_to_objref(ud)::Callbacks
    try
        X = copy(unsafe_wrap(Array, x, (Int(d), Int(k))))
        s = copy(unsafe_wrap(Array, seeds, Int(k)))
        G0, rej = split_rejects(cb.grad_batch(X, s), Int(k))
        G = convert(Matrix{T}, G0)
        size(G) == (d, k) || throw(DimensionMismatch("grad returned $(size(G)), expected ($d, $k)"))
        GC.@preserve G unsafe_copyto!(g, pointer(G), Int(k * d))
        store_rejects!(st, rej, Int(k))
        return Int32(SGS_CB_OK)
    catch e
        return abort!(cb, e)
    end
end

batch_energy_ptr(::Type{Float64}) = @cfunction(batch_energy_tramp, Int32, (Ptr{Cvoid}, Ptr{Cdouble}, Csize_t, Csize_t, Ptr{Csize_t}, Ptr{Cdouble}, Ptr{Int32}))
batch_energy_ptr(::Type{Float32}) = @cfunction(batch_energy_tramp, Int32, (Ptr{Cvoid}, Ptr{Cfloat}, Csize_t, Csize_t, Ptr{Csize_t}, Ptr{Cdouble}, Ptr{Int32}))
batch_grad_ptr(::Type{Float64}) = @cfunction(batch_grad_tramp, Int32, (Ptr{Cvoid}, Ptr{Cdouble}, Csize_t, Csize_t, Ptr{UInt64}, Ptr{Csize_t}, Ptr{Cdouble}, Ptr{Int32}))
batch_grad_ptr(::Type{Float32}) = @cfunction(batch_grad_tramp, Int32, (Ptr{Cvoid}, Ptr{Cfloat}, Csize_t, Csize_t, Ptr{UInt64}, Ptr{Csize_t}, Ptr{Cfloat}, Ptr{Int32}))

"""
    Raw(fn::Ptr{Cvoid}, user_data::Ptr{Cvoid}=C_NULL)

A C callback with the `sgs_*_fn` signature (e.g. from `Libdl.dlsym`) and its user data: runs
without Julia. Keep whatever `user_data` points to alive while the sampler is used.
"""
struct Raw
    fn::Ptr{Cvoid}
    user_data::Ptr{Cvoid}
end
Raw(fn::Ptr{Cvoid}) = Raw(fn, C_NULL)

function rethrow_callback_error!(cb::Callbacks)
    e = cb.err
    cb.err = nothing
    # The original exception is thrown (so `catch e; e isa MyError` works); the captured one,
    # with the backtrace inside the callback, stays in `cb.last` for inspection.
    e === nothing && return nothing
    cb.last = e
    throw(e.ex)
end

# ---------------------------------------------------------------------------------------------
# States in Julia memory, sized and aligned by the library's own queries

suffix(::Type{Float64}) = ""
suffix(::Type{Float32}) = "_f32"
cfun(kind, name, T) = getfield(@__MODULE__, Symbol("sgs_", kind, "_", name, suffix(T)))

struct StateMemory
    buf::Vector{UInt64}
    offset::Int
    type::DataType   # sgs_amagold, sgs_svgd_f32, ...
end

function StateMemory(kind, T)
    size = cfun(kind, "state_size", T)()
    align = cfun(kind, "state_align", T)()
    buf = zeros(UInt64, cld(size + align, 8))
    offset = Int(mod(-Int(UInt(pointer(buf))), align))
    StateMemory(buf, offset, getfield(@__MODULE__, Symbol("sgs_", kind, suffix(T))))
end
# The typed state pointer the generated wrappers take; use inside GC.@preserve of the owner.
Base.pointer(m::StateMemory) = Ptr{m.type}(pointer(m.buf) + m.offset)

"""Totals of a sampler's runs (since it was created)."""
mutable struct RunInfo
    sampler::Symbol
    iterations::Int
    accepted::Int
    divergences::Int
    step_size::Float64
    phase::Symbol     # AMAGOLD: the last iteration's (:sampling, :approach, :fast, :slow, :final)
end
RunInfo(s) = RunInfo(s, 0, 0, 0, NaN, :none)
accept_rate(i::RunInfo) = i.iterations == 0 ? NaN : i.accepted / i.iterations

function with_fields(x::S, kw) where {S}
    for k in keys(kw)
        k in fieldnames(S) || throw(ArgumentError("unknown option $k for $S; options: $(fieldnames(S))"))
    end
    S((haskey(kw, f) ? convert(fieldtype(S, f), kw[f]) : getfield(x, f) for f in fieldnames(S))...)
end

# ---------------------------------------------------------------------------------------------
# Chains: AMAGOLD, SGHMC, SGLD

mutable struct Chain{K,T}
    state::StateMemory
    config::Any
    theta0::Vector{T}
    workspace::Vector{T}
    cb::Callbacks
    raw::Any          # Raw callbacks kept alive
    d::Int
    info::RunInfo
end

const AMAGOLD = Chain{:amagold}
const SGHMC = Chain{:sghmc}
const SGLD = Chain{:sgld}
const TunaMH = Chain{:tunamh}

callback(cb::Callbacks, f::Raw, field, ptrf, T) = f.fn, f.user_data
function callback(cb::Callbacks, f, field, ptrf, T)
    setfield!(cb, field, f)
    return ptrf(T), nothing
end

"""
    AMAGOLD(energy, grad, θ0; step_size=nothing, T=Float64, kwargs...)
    SGHMC(grad, θ0; step_size, kwargs...)
    SGLD(grad, θ0; step_size, kwargs...)

A chain at θ0. `energy(θ) -> Real` (full data), `grad(θ, seed) -> Vector` (stochastic), or
[`Raw`](@ref) C callbacks. Keyword options are the fields of the C config
(`friction`, `momentum_sd`, `steps`, `warmup`, `target_accept`, `seed`, `stream`, `variant`,
`resample_momentum`; AMAGOLD's `mass` (`:unit`, `:diagonal`, `:dense` or an `SGS_MASS_…`
constant), `approach`, `jitter_steps`). AMAGOLD without `step_size` starts from
`sgs_amagold_config_adaptive()` (a warm-up of 1000 iterations that brings a far start in and
learns ε and a diagonal mass matrix), with it from `sgs_amagold_config_default(step_size)`;
`adapt_mass=true` is a deprecated alias of `mass=:diagonal`.
"""
function Chain{K}(energy, grad, theta0::AbstractVector; step_size=nothing, T::Type=Float64,
                  kw...) where {K}
    config = Ref(chain_config(K, step_size, kw))
    th = Vector{T}(theta0)
    d = length(th)
    # AMAGOLD's workspace depends on its configuration (mass matrix, approach).
    wl = K === :amagold ? cfun(K, "workspace_len_for", T)(config, d) :
         cfun(K, "workspace_len", T)(d)
    ws = zeros(T, max(wl, 1))
    cb = Callbacks()
    gfn, gud = callback(cb, grad, :grad, grad_ptr, T)
    args = Any[]
    uds = Any[gud]
    if K === :amagold
        efn, eud = callback(cb, energy, :energy, energy_ptr, T)
        push!(args, efn)
        pushfirst!(uds, eud)
    end
    push!(args, gfn)
    python_cb = any(x -> !(x isa Raw), K === :amagold ? (energy, grad) : (grad,))
    raw_ud = something(filter(!isnothing, uds)..., C_NULL)
    python_cb && raw_ud != C_NULL &&
        throw(ArgumentError("cannot mix Julia callbacks with Raw callbacks that need user_data"))
    st = StateMemory(K, T)
    chain = Chain{K,T}(st, config, th, ws, cb, (energy, grad), d, RunInfo(K))
    ud = python_cb ? pointer_from_objref(cb) : raw_ud
    status = GC.@preserve chain st cb config th ws begin
        cfun(K, "init", T)(pointer(st), config, pointer(th), d, pointer(ws), wl, args..., ud)
    end
    rethrow_callback_error!(cb)
    check(status, "sgs_$(K)_init$(suffix(T))")
    return chain
end
Chain{K}(grad, theta0::AbstractVector; kw...) where {K} = Chain{K}(nothing, grad, theta0; kw...)

# The C config of sampler K from `step_size` and the keyword options (see `Chain`).
function chain_config(K, step_size, kw)
    K in (:amagold, :sghmc, :sgld) || throw(ArgumentError("unknown sampler $K"))
    kw = K === :amagold ? amagold_options(Dict{Symbol,Any}(kw)) : Dict(kw)
    default = if K === :amagold && step_size === nothing
        sgs_amagold_config_adaptive()
    else
        step_size === nothing && throw(ArgumentError("$K needs a step_size"))
        getfield(@__MODULE__, Symbol("sgs_", K, "_config_default"))(Float64(step_size))
    end
    return with_fields(default, kw)
end

summary_type(::Chain{:amagold}) = sgs_amagold_run_summary
summary_type(::Chain{:tunamh}) = sgs_tunamh_run_summary
summary_type(::Chain) = sgs_chain_run_summary
summary_type(K::Symbol) = K === :amagold ? sgs_amagold_run_summary :
                          K === :tunamh ? sgs_tunamh_run_summary : sgs_chain_run_summary

"""
    TunaMH(differences, θ0; terms, bound, step_size, chi=1.0, exact=nothing, T=Float64,
           seed=0, stream=0)

A TunaMH chain (exact minibatch Metropolis–Hastings, docs/algorithms.md §7) at θ0 for the
target `π(θ) ∝ exp(−U₀(θ) − Σᵢ Uᵢ(θ))` over `terms` data terms. `differences(θ, θ′, idx)`
returns `Uᵢ(θ′) − Uᵢ(θ)` for each term index in `idx` (1-based, at most 32 per call);
`exact(θ, θ′)` returns `U₀(θ′) − U₀(θ)` (a prior; `nothing`: none). `bound` is c with
`|Uᵢ(θ′) − Uᵢ(θ)| ≤ c·‖θ′ − θ‖` for every term: a difference past it throws
`SGSampleError` with `SGS_ERR_BOUND_EXCEEDED` and leaves the chain unchanged. `step_size` is
the random-walk proposal's standard deviation, `chi` the batch constant χ. Run it with
[`run!`](@ref) or [`sample`](@ref); [`evaluations`](@ref) counts the term differences asked for.
"""
function Chain{:tunamh}(differences, theta0::AbstractVector; terms::Integer, bound::Real,
                        step_size::Real, exact=nothing, T::Type=Float64, kw...)
    terms >= 0 || throw(ArgumentError("terms must be non-negative, got $terms"))
    default = sgs_tunamh_config_default(Float64(step_size), UInt64(terms), Float64(bound))
    config = Ref(with_fields(default, Dict(kw)))
    th = Vector{T}(theta0)
    d = length(th)
    wl = cfun(:tunamh, "workspace_len", T)(d)
    ws = zeros(T, max(wl, 1))
    cb = Callbacks()
    cb.differences = differences
    cb.exact = exact
    st = StateMemory(:tunamh, T)
    chain = Chain{:tunamh,T}(st, config, th, ws, cb, (differences, exact), d, RunInfo(:tunamh))
    efn = exact === nothing ? C_NULL : exact_ptr(T)
    status = GC.@preserve chain st cb config th ws begin
        cfun(:tunamh, "init", T)(pointer(st), config, pointer(th), d, pointer(ws), wl, efn,
                                 differences_ptr(T), pointer_from_objref(cb))
    end
    rethrow_callback_error!(cb)
    check(status, "sgs_tunamh_init$(suffix(T))")
    return chain
end

"""`evaluations(c::TunaMH)`: the term differences the chain has asked for since it was made
(what a data budget counts)."""
function evaluations(c::Chain{:tunamh,T}) where {T}
    out = Ref{UInt64}(0)
    check(GC.@preserve(c, cfun(:tunamh, "evaluations", T)(pointer(c.state), out)), "evaluations")
    return Int(out[])
end

# One run summary into a RunInfo (AMAGOLD: the last iteration's step size and phase).
function add_summary!(info::RunInfo, K, s)
    info.iterations += s.iterations
    info.accepted += s.accepted
    info.divergences += s.divergences
    if K === :amagold && s.has_last == 1
        info.step_size = s.last.step_size
        info.phase = get(define_names("SGS_PHASE_"), Int(s.last.phase), :unknown)
    end
    return info
end

"""
    run!(chain, n; chunk_seconds=0.05) -> Matrix (d × n)

Runs `n` outer iterations; column k of the result is draw k. Runs in C calls of about
`chunk_seconds` each, so that Ctrl-C (an `InterruptException`) stops it between iterations.
"""
function run!(c::Chain{K,T}, n::Integer; chunk_seconds=0.05) where {K,T}
    out = Matrix{T}(undef, c.d, n)
    done_total = 0
    k = 1
    done = Ref{Csize_t}(0)
    summ = Ref{summary_type(c)}()
    while done_total < n
        k = min(k, n - done_total)
        t = time()
        status = GC.@preserve c out begin
            cfun(K, "run", T)(pointer(c.state), k, pointer(out, done_total * c.d + 1), k * c.d,
                              done, summ)
        end
        add_summary!(c.info, K, summ[])
        done_total += Int(done[])
        if status != SGS_OK
            rethrow_callback_error!(c.cb)
            check(status, "sgs_$(K)_run$(suffix(T))")
        end
        dt = time() - t
        k = max(1, min(4k, dt > 0 ? floor(Int, k * chunk_seconds / dt) : 4k))
        yield()   # a safepoint: a pending Ctrl-C is thrown here, between C calls
    end
    return out
end

"""`position(chain)`: the chain's current θ (a method of `Base.position`)."""
function Base.position(c::Chain{K,T}) where {K,T}
    out = Vector{T}(undef, c.d)
    check(GC.@preserve(c, out, cfun(K, "position", T)(pointer(c.state), pointer(out), c.d)),
          "position")
    out
end

"""
    sample(Sampler, args...; draws, chains=1, seed=0, stream=0, vectorized=false, kwargs...) -> (d × draws × chains, infos)

`chains` chains on the streams `stream, stream+1, …` of one seed. With `vectorized=true` the
callbacks take all chains' points at once (see [`Batch`](@ref): `energy(Θ::d × k)`,
`grad(Θ::d × k, seeds)`) and the chains run in lockstep through `sgs_*_run_batch`, one Julia
call per round for all chains; the draws equal those of per-point callbacks computing the
same rows, bit for bit.
"""
function sample(::Type{S}, args...; draws, chains=1, seed=0, stream=0, vectorized=false,
                kw...) where {S<:Chain}
    if vectorized
        b = Batch{kindof(S)}(args...; chains=chains, seed=seed, stream=stream, kw...)
        return run!(b, draws), b.infos
    end
    runs = [begin
                c = S(args...; seed=seed, stream=stream + i - 1, kw...)
                (run!(c, draws), c.info)
            end for i in 1:chains]
    return cat(first.(runs)...; dims=3), last.(runs)
end

# :amagold, :sghmc or :sgld of AMAGOLD, SGHMC, SGLD (or a Chain{K,T}).
function kindof(S::Type)
    for K in (:amagold, :sghmc, :sgld)
        S <: Chain{K} && return K
    end
    throw(ArgumentError("not a chain sampler: $S"))
end

# ---------------------------------------------------------------------------------------------
# K chains per call: sgs_*_run_batch

"""
    Batch{K}(energy, grad, θ0; chains, step_size=nothing, T=Float64, seed=0, stream=0,
             max_calls=16, kwargs...)        # K = :amagold
    Batch{K}(grad, θ0; chains, step_size, ...)   # K = :sghmc, :sgld

`chains` chains of one sampler advanced in lockstep by `run!(b, n)` (`sgs_*_run_batch`): each
round calls `grad(Θ, seeds)` once with the points of every chain that needs a gradient (`Θ` a
d × k matrix, column r one chain's point, `seeds` its k minibatch seeds; return d × k) and
`energy(Θ)` once with every chain that needs an energy (return k values). Either may return
`(values, rejected)`, `rejected[r] == true` marking row r outside the domain. Row r's value must
depend only on column r and `seeds[r]`: then the draws are bit for bit those of `chains`
separate chains with per-point callbacks (chain c on stream `stream + c - 1` of `seed`, as in
[`sample`](@ref)). `θ0` is one start for all chains or a d × chains matrix; the keyword options
are the chain's (see `AMAGOLD`). `max_calls` sizes the cache of answers per step (more memory,
fewer one-row calls in the warm-up's long steps); `b.infos[c]` are chain c's totals.
"""
mutable struct Batch{K,T}
    buf::Vector{UInt64}          # the k states, contiguous (a C array sgs_*[k])
    offset::Int
    stype::DataType
    configs::Vector{Any}
    workspaces::Vector{Vector{T}}
    cb::Callbacks
    d::Int
    k::Int
    max_calls::Int
    scratch::Vector{Float64}
    infos::Vector{RunInfo}
    partial::Any                 # after an interrupted run!: each chain's completed draws
end

states_pointer(b::Batch) = Ptr{b.stype}(pointer(b.buf) + b.offset)

function Batch{K}(energy, grad, theta0::AbstractVecOrMat; chains::Integer, step_size=nothing,
                  T::Type=Float64, seed=0, stream=0, max_calls::Integer=16, kw...) where {K}
    chains >= 1 || throw(ArgumentError("chains must be at least 1, got $chains"))
    max_calls >= 0 || throw(ArgumentError("max_calls must be ≥ 0, got $max_calls"))
    th0 = theta0 isa AbstractVector ? repeat(Vector{T}(theta0), 1, chains) : Matrix{T}(theta0)
    size(th0, 2) == chains ||
        throw(DimensionMismatch("θ0 has $(size(th0, 2)) columns for $chains chains"))
    d = size(th0, 1)
    cb = Callbacks()
    cb.grad_batch = grad
    cb.energy_batch = energy
    # init evaluates the energy at θ0 through the per-point trampoline: one column at a time.
    one_row(v, rej) = (rej !== nothing && rej[1]) ? throw(OutOfDomain()) : v
    cb.energy = θ -> Float64(one_row(split_rejects(energy(reshape(θ, :, 1)), 1)...)[1])
    cb.grad = (θ, s) -> vec(one_row(split_rejects(grad(reshape(θ, :, 1), [s]), 1)...))
    size_ = cfun(K, "state_size", T)()
    align = cfun(K, "state_align", T)()
    buf = zeros(UInt64, cld(chains * size_ + align, 8))
    offset = Int(mod(-Int(UInt(pointer(buf))), align))
    stype = getfield(@__MODULE__, Symbol("sgs_", K, suffix(T)))
    scratch_len = getfield(@__MODULE__, Symbol("sgs_", K, "_batch_scratch_len"))(chains, d, max_calls)
    b = Batch{K,T}(buf, offset, stype, Any[], Vector{T}[], cb, d, chains, max_calls,
                   zeros(Float64, max(scratch_len, 1)), [RunInfo(K) for _ in 1:chains], nothing)
    for c in 1:chains
        config = Ref(chain_config(K, step_size, merge(Dict{Symbol,Any}(kw),
                                                      Dict{Symbol,Any}(:seed => seed, :stream => stream + c - 1))))
        th = th0[:, c]
        wl = K === :amagold ? cfun(K, "workspace_len_for", T)(config, d) :
             cfun(K, "workspace_len", T)(d)
        ws = zeros(T, max(wl, 1))
        push!(b.configs, config)
        push!(b.workspaces, ws)
        args = K === :amagold ? (energy_ptr(T), grad_ptr(T)) : (grad_ptr(T),)
        status = GC.@preserve b cb config th ws begin
            st = states_pointer(b) + (c - 1) * size_
            cfun(K, "init", T)(st, config, pointer(th), d, pointer(ws), wl, args...,
                               pointer_from_objref(cb))
        end
        rethrow_callback_error!(cb)
        check(status, "sgs_$(K)_init$(suffix(T))")
    end
    return b
end
Batch{K}(grad, theta0::AbstractVecOrMat; kw...) where {K} = Batch{K}(nothing, grad, theta0; kw...)

"""
    run!(b::Batch, n; chunk_seconds=0.05) -> Array (d × n × chains)

`n` iterations of every chain in lockstep; `out[:, i, c]` is chain c's draw i. Runs in C calls
of about `chunk_seconds` (Ctrl-C lands between them). When a callback throws, the exception is
rethrown; every chain keeps the iterations it completed (`b.infos[c].iterations`, which can
differ by one between chains) and `b.partial` holds their draws (a vector of d × nᶜ matrices).
"""
function run!(b::Batch{K,T}, n::Integer; chunk_seconds=0.05) where {K,T}
    out = Array{T,3}(undef, b.d, n, b.k)
    done = zeros(Csize_t, b.k)
    summ = Vector{summary_type(K)}(undef, b.k)
    efn = K === :amagold ? batch_energy_ptr(T) : C_NULL
    gfn = batch_grad_ptr(T)
    total, m = 0, 1
    while total < n
        m = min(m, n - total)
        chunk = Array{T,3}(undef, b.d, m, b.k)   # = the C API's chain-major k × m × d
        t = time()
        status = GC.@preserve b chunk done summ begin
            cfun(K, "run_batch", T)(states_pointer(b), b.k, m, efn, gfn, pointer_from_objref(b.cb),
                                    pointer(b.scratch), length(b.scratch), b.max_calls,
                                    pointer(chunk), length(chunk), pointer(done), pointer(summ))
        end
        for c in 1:b.k
            add_summary!(b.infos[c], K, summ[c])
            out[:, total+1:total+Int(done[c]), c] .= chunk[:, 1:Int(done[c]), c]
        end
        if status != SGS_OK
            b.partial = [out[:, 1:total+Int(done[c]), c] for c in 1:b.k]
            rethrow_callback_error!(b.cb)
            check(status, "sgs_$(K)_run_batch$(suffix(T))")
        end
        total += m
        dt = time() - t
        m = max(1, min(4m, dt > 0 ? floor(Int, m * chunk_seconds / dt) : 4m))
        yield()
    end
    return out
end

# ---------------------------------------------------------------------------------------------
# AMAGOLD's warm-up API: mass matrices, the step size, the warm-up report and its comparison

"""`{value => :name}` of the generated `SGS_<prefix>NAME` constants (`SGS_PHASE_SLOW` → `:slow`),
without those starting with `exclude`: nothing here copies a value from the header."""
function define_names(prefix, exclude=nothing)
    out = Dict{Int,Symbol}()
    for n in names(@__MODULE__; all=true)
        s = String(n)
        if startswith(s, prefix) && (exclude === nothing || !startswith(s, exclude))
            v = getfield(@__MODULE__, n)
            v isa Integer && (out[Int(v)] = Symbol(lowercase(s[length(prefix)+1:end])))
        end
    end
    return out
end

# AMAGOLD's options: `mass` as a Symbol, and the deprecated `adapt_mass`.
function amagold_options(kw::Dict{Symbol,Any})
    if haskey(kw, :adapt_mass)
        Base.depwarn("adapt_mass is deprecated: use mass=:diagonal (or mass=:unit)", :AMAGOLD)
        v = pop!(kw, :adapt_mass)
        v in (true, false, 0, 1) || throw(ArgumentError("adapt_mass must be true or false"))
        m = Bool(v) ? :diagonal : :unit
        haskey(kw, :mass) && kw[:mass] != m && kw[:mass] != mass_value(m) &&
            throw(ArgumentError("adapt_mass=$v contradicts mass=$(kw[:mass])"))
        kw[:mass] = m
    end
    haskey(kw, :mass) && kw[:mass] isa Symbol && (kw[:mass] = mass_value(kw[:mass]))
    return kw
end

function mass_value(m::Symbol)
    for (v, name) in define_names("SGS_MASS_")
        name === m && return v
    end
    throw(ArgumentError("mass must be one of $(sort(collect(values(define_names("SGS_MASS_")))))"))
end

"""`step_size(c::AMAGOLD)`: the step size the next iteration uses (adapted during the warm-up)."""
function step_size(c::Chain{:amagold,T}) where {T}
    out = Ref{Cdouble}(0)
    check(GC.@preserve(c, cfun(:amagold, "step_size", T)(pointer(c.state), out)), "step_size")
    return out[]
end

"""`set_step_size!(c::AMAGOLD, ε)`: fixes ε for the next iterations (e.g. a pilot's, on a chain
without a warm-up; during one the dual averaging restarts from it)."""
function set_step_size!(c::Chain{:amagold,T}, eps::Real) where {T}
    check(GC.@preserve(c, cfun(:amagold, "set_step_size", T)(pointer(c.state), Float64(eps))),
          "sgs_amagold_set_step_size$(suffix(T))")
    return c
end

"""`inverse_mass(c::AMAGOLD)`: the diagonal of the inverse mass matrix relative to σ⁻² (d
values; with σ = 1 the posterior variances the warm-up estimates; ones for unit mass)."""
function inverse_mass(c::Chain{:amagold,T}) where {T}
    out = Vector{T}(undef, c.d)
    check(GC.@preserve(c, out, cfun(:amagold, "inverse_mass", T)(pointer(c.state), pointer(out),
                                                                 c.d)), "inverse_mass")
    return out
end

"""`set_inverse_mass!(c::AMAGOLD, k)`: a diagonal inverse mass matrix (d positive values;
`mass=:diagonal` or `:dense`)."""
function set_inverse_mass!(c::Chain{:amagold,T}, k::AbstractVector) where {T}
    where_ = "sgs_amagold_set_inverse_mass$(suffix(T))"
    length(k) == c.d || throw(SGSampleError(SGS_ERR_LENGTH_MISMATCH, where_))
    v = Vector{T}(k)
    check(GC.@preserve(c, v, cfun(:amagold, "set_inverse_mass", T)(pointer(c.state), pointer(v),
                                                                   c.d)), where_)
    return c
end

"""`inverse_mass_dense(c::AMAGOLD)`: the whole inverse mass matrix relative to σ⁻², d × d
(symmetric: the C API's row-major matrix is its own transpose)."""
function inverse_mass_dense(c::Chain{:amagold,T}) where {T}
    out = Matrix{T}(undef, c.d, c.d)
    check(GC.@preserve(c, out, cfun(:amagold, "inverse_mass_dense", T)(pointer(c.state),
                                                                       pointer(out), c.d^2)),
          "inverse_mass_dense")
    return out
end

"""`set_inverse_mass_dense!(c::AMAGOLD, K)`: a symmetric positive definite d × d inverse mass
matrix (`mass=:dense`; passed row-major, as the C API reads it)."""
function set_inverse_mass_dense!(c::Chain{:amagold,T}, K::AbstractMatrix) where {T}
    where_ = "sgs_amagold_set_inverse_mass_dense$(suffix(T))"
    size(K) == (c.d, c.d) || throw(SGSampleError(SGS_ERR_LENGTH_MISMATCH, where_))
    rowmajor = Matrix{T}(permutedims(K))
    check(GC.@preserve(c, rowmajor, cfun(:amagold, "set_inverse_mass_dense", T)(
        pointer(c.state), pointer(rowmajor), c.d^2)), where_)
    return c
end

# A report as a NamedTuple: the C struct's fields, `verdict` a Symbol (:none, :running, :ok,
# :suspect), `reasons` the flags' names (Symbols), `reason_flags` the bits.
function report_tuple(r::sgs_warmup_report)
    fields = fieldnames(sgs_warmup_report)
    base = NamedTuple{fields}(map(f -> getfield(r, f), fields))
    reasons = define_names("SGS_WARMUP_REASON_")
    names_ = Symbol[get(reasons, 1 << b, Symbol("0x", string(1 << b; base=16)))
                    for b in 0:31 if r.reasons & (UInt32(1) << b) != 0]
    verdict = get(define_names("SGS_WARMUP_", "SGS_WARMUP_REASON_"), Int(r.verdict), :unknown)
    return merge(base, (verdict=verdict, reasons=names_, reason_flags=r.reasons))
end

"""`warmup_report(c::AMAGOLD)`: the warm-up's report (`sgs_amagold_warmup_report`) as a
NamedTuple: `verdict` `:none`, `:running`, `:ok` or `:suspect`, `reasons` (Symbols), and the C
struct's other fields."""
function warmup_report(c::Chain{:amagold,T}) where {T}
    out = Ref{sgs_warmup_report}()
    check(GC.@preserve(c, cfun(:amagold, "warmup_report", T)(pointer(c.state), out)),
          "sgs_amagold_warmup_report$(suffix(T))")
    return report_tuple(out[])
end

"""`warmup_compare(chains)`: the reports of the AMAGOLD chains of one model compared
(`sgs_amagold_warmup_compare`: `:chains_disagree` where they disagree)."""
function warmup_compare(chains::AbstractVector{<:Chain{:amagold,T}}) where {T}
    k = length(chains)
    k == 0 && throw(SGSampleError(SGS_ERR_ZERO_DIMENSION, "sgs_amagold_warmup_compare"))
    out = Vector{sgs_warmup_report}(undef, k)
    status = GC.@preserve chains out begin
        ptrs = [pointer(c.state) for c in chains]
        GC.@preserve ptrs cfun(:amagold, "warmup_compare", T)(pointer(ptrs), k, pointer(out), k)
    end
    check(status, "sgs_amagold_warmup_compare$(suffix(T))")
    return report_tuple.(out)
end

# ---------------------------------------------------------------------------------------------
# SVGD / RBM-SVGD

mutable struct SVGD{T}
    state::StateMemory
    config::Any
    particles::Matrix{T}   # d × N, column i is particle i (= the C API's row-major N × d)
    workspace::Vector{T}
    index::Vector{UInt32}
    cb::Callbacks
    raw::Any
    info::RunInfo
end

"""
    SVGD(X0::AbstractMatrix; grad=nothing, grads=nothing, batch_size=N, step_size, T=Float64, kwargs...)

SVGD on the particles `X0` (**d × N**: column i is particle i; copied). `grad(x, seed)` per particle
or `grads(X, seed) -> d × N` for all of them at once (or [`Raw`](@ref)). Options: the fields of
`sgs_svgd_config` (`bandwidth`, `kernel`, `step_rule`, `adagrad_alpha`, `batching`, `imq_c`,
`imq_beta`, `seed`, `stream`) with the `SGS_…` constants as values.
"""
function SVGD(X0::AbstractMatrix; grad=nothing, grads=nothing, batch_size=size(X0, 2), step_size,
              T::Type=Float64, kw...)
    X = Matrix{T}(X0)
    d, n = size(X)
    default = sgs_svgd_config_default(UInt64(batch_size), Float64(step_size))
    config = Ref(with_fields(default, Dict(kw)))
    wl = cfun(:svgd, "workspace_len", T)(n, d, config)
    il = cfun(:svgd, "index_len", T)(n)
    ws = zeros(T, max(wl, 1))
    idx = zeros(UInt32, max(il, 1))
    cb = Callbacks()
    g1, u1 = grad === nothing ? (C_NULL, nothing) : callback(cb, grad, :grad, grad_ptr, T)
    g2, u2 = grads === nothing ? (C_NULL, nothing) : callback(cb, grads, :grads, grads_ptr, T)
    juliacb = any(x -> x !== nothing && !(x isa Raw), (grad, grads))
    raw_ud = something(filter(!isnothing, Any[u1, u2])..., C_NULL)
    juliacb && raw_ud != C_NULL &&
        throw(ArgumentError("cannot mix Julia callbacks with Raw callbacks that need user_data"))
    st = StateMemory(:svgd, T)
    s = SVGD{T}(st, config, X, ws, idx, cb, (grad, grads), RunInfo(:svgd))
    ud = juliacb ? pointer_from_objref(cb) : raw_ud
    status = GC.@preserve s st config X ws idx cb begin
        cfun(:svgd, "init", T)(pointer(st), config, pointer(X), n, d, pointer(ws), wl,
                               pointer(idx), il, g1, g2, ud)
    end
    rethrow_callback_error!(cb)
    check(status, "sgs_svgd_init$(suffix(T))")
    return s
end

"""
    svgd!(s::SVGD, iterations) -> d × N particles (a copy)
"""
function svgd!(s::SVGD{T}, iterations::Integer; chunk_seconds=0.05) where {T}
    summ = Ref{sgs_svgd_run_summary}()
    done, k = 0, 1
    while done < iterations
        k = min(k, iterations - done)
        t = time()
        status = GC.@preserve s cfun(:svgd, "run", T)(pointer(s.state), k, summ)
        s.info.iterations += summ[].iterations
        done += Int(summ[].iterations)
        if status != SGS_OK
            rethrow_callback_error!(s.cb)
            check(status, "sgs_svgd_run$(suffix(T))")
        end
        s.info.step_size = summ[].last.step_size
        dt = time() - t
        k = max(1, min(4k, dt > 0 ? floor(Int, k * chunk_seconds / dt) : 4k))
        yield()
    end
    return copy(s.particles)
end

particles(s::SVGD) = copy(s.particles)

"""`minibatch(seed, n, size)`: the library's minibatch, `size` distinct 0-based indices < n."""
function minibatch(seed::Integer, n::Integer, size::Integer)
    out = Vector{UInt64}(undef, size)
    check(GC.@preserve(out, sgs_minibatch(UInt64(seed), UInt64(n), pointer(out), size)),
          "sgs_minibatch")
    out
end

"""
    SGSample.normal(seed, n; T=Float64) -> Vector{T}
    SGSample.uniform(seed, n; T=Float64) -> Vector{T}

`n` standard normals / uniforms in [0, 1) as a pure function of `(seed, n)`, from the library's
own generator (`sgs_normal`, `sgs_uniform`; docs/algorithms.md, "Seed-derived noise"): what a
gradient callback turns its minibatch seed into when its gradient is itself random, the same
bits as in C, Python and MATLAB. `T=Float32`: the same normals rounded, the uniforms with 24
bits.
"""
normal(seed::Integer, n::Integer; T::Type=Float64) = seeded(:normal, seed, n, T)
uniform(seed::Integer, n::Integer; T::Type=Float64) = seeded(:uniform, seed, n, T)

function seeded(kind, seed, n, T)
    n >= 0 || throw(ArgumentError("n must be ≥ 0, got $n"))
    out = Vector{T}(undef, max(n, 1))   # never a NULL pointer, even for n = 0
    f = getfield(@__MODULE__, Symbol("sgs_", kind, suffix(T)))
    check(GC.@preserve(out, f(UInt64(seed), pointer(out), n)), "sgs_$(kind)$(suffix(T))")
    return resize!(out, n)
end

end # module
