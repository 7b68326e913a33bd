// PairedRatio: how one target compares with another over paired rounds -- the one
// place every reco_load report (table, HTML, JSON, CSV) gets its ratios from.
//
// reco_load drives its targets interleaved (A B C, A B C, ...), so round r of every
// target shares round r's machine noise. The ratio reported is the MEDIAN of the
// per-round ratios value[r] / baseline[r], with their min and max; a ratio of the run
// totals would let one noisy round decide. When the min-max spread includes 1.0 the
// rounds disagree on which side is bigger: no measurable difference.
//
// A round where either value is missing (nullopt: n/a) or the baseline's is 0 is
// left out and counted in `skipped`.
//
// Example:
//   std::optional<reco::PairedRatio> r = reco::PairRounds({110, 150, 120}, {100, 100, 100});
//   // r->median == 1.2, r->min == 1.1, r->max == 1.5, r->rounds == 3, r->measurable()
//   reco::FormatPairedRatio(*r)   // "x1.20 [1.10-1.50]"
//   reco::PairRounds({95, 110}, {100, 100})        // ~1: "~1 [0.95-1.10]"
//   reco::PairRounds({143}, {100})                 // one round: "x1.43" (no spread)
//
// Thread-safety: plain values and pure functions.
#ifndef ARENA_GRPC_CLIENT_PAIRED_RATIO_H_
#define ARENA_GRPC_CLIENT_PAIRED_RATIO_H_

#include <optional>
#include <string>
#include <vector>

namespace reco {

struct PairedRatio {
  double median = 0;
  double min = 0;
  double max = 0;
  int rounds = 0;   // rounds that paired (the ratios the median is over)
  int skipped = 0;  // rounds left out: a value n/a, or the baseline's 0
  // Each round's ratio, in round order; nullopt for a round left out.
  std::vector<std::optional<double>> by_round;

  // True when every paired round puts the value on the same side of 1.0. One round
  // has no spread to judge by, so it is never called measurable.
  bool measurable() const { return rounds >= 2 && (min > 1.0 || max < 1.0); }
};

// The per-round ratios values[r] / baseline[r], paired by index; nullopt when no
// round pairs. Rounds beyond the shorter vector count as skipped.
std::optional<PairedRatio> PairRounds(const std::vector<std::optional<double>>& values,
                                      const std::vector<std::optional<double>>& baseline);

// "x1.43 [1.22-1.82]"; "~1 [0.95-1.10]" when not measurable; "x1.43" over one round.
// A trailing "*" marks a ratio over fewer rounds than the run had (skipped > 0).
std::string FormatPairedRatio(const PairedRatio& ratio);

// A share (a ratio below 1 by nature, e.g. of the ceiling's QPS) in percent:
// "42% [40-45]", or "42%" over one round; "*" as above.
std::string FormatPairedShare(const PairedRatio& share);

// The legend printed under a table of such ratios, e.g. "ratios to heap: xM [min-max]
// = median of the 3 per-round ratios ...; ~1 = ..." or, for a one-round run, "ratios
// to heap: 1 round: no spread". `any_skipped` adds what "*" means.
std::string PairedRatioLegend(int rounds, const std::string& baseline, bool any_skipped);

}  // namespace reco

#endif  // ARENA_GRPC_CLIENT_PAIRED_RATIO_H_
