// Runs one problem: creates the Tessera primitive, checks it against the scalar reference
// (--mode=C), times it against a same-run memcpy (--mode=P) and, with --compare=onednn, runs
// oneDNN 2.6.3 on the same problem.
//
//   outcome o = run_problem(parsed, *resolve(parsed.prb));
#ifndef TESSERA_BENCH_DRIVER_RUNNER_H_
#define TESSERA_BENCH_DRIVER_RUNNER_H_

#include "bench/driver/batch_parser.h"
#include "bench/driver/report.h"
#include "bench/driver/resolve.h"

namespace tessera::bench {

outcome run_problem(const parsed_problem& pp, const resolved& r);

}  // namespace tessera::bench

#endif  // TESSERA_BENCH_DRIVER_RUNNER_H_
