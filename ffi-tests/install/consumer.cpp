// The C++ twin of consumer.c, through the installed sgsample.hpp.
#include <sgsample.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
    if (sgs::check_version() != SGS_OK) return 1;
    sgs_amagold_config cfg = sgs_amagold_config_default(0.5);
    cfg.seed = 1;
    sgs::amagold chain(
        cfg, std::vector<double>{0.0}, [](const double *x, std::size_t) { return 0.5 * x[0] * x[0]; },
        [](const double *x, std::size_t, std::uint64_t, double *g) { g[0] = x[0]; });
    auto r = chain.run(4000);
    double m = 0.0;
    for (double x : r.values) m += x;
    m /= double(r.values.size());
    std::printf("consumer (C++): sgsample %s, mean %.3f\n", sgs_version(), m);
    return std::fabs(m) < 0.25 ? 0 : 1;
}
