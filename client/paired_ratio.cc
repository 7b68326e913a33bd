// See paired_ratio.h.
#include "client/paired_ratio.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace reco {

std::optional<PairedRatio> PairRounds(const std::vector<std::optional<double>>& values,
                                      const std::vector<std::optional<double>>& baseline) {
  PairedRatio p;
  std::vector<double> ratios;
  for (size_t r = 0; r < std::max(values.size(), baseline.size()); ++r) {
    const bool pairs = r < values.size() && r < baseline.size() && values[r] && baseline[r] && *baseline[r] != 0;
    p.by_round.push_back(pairs ? std::optional<double>(*values[r] / *baseline[r]) : std::nullopt);
    if (pairs) ratios.push_back(*p.by_round.back());
  }
  if (ratios.empty()) return std::nullopt;
  std::sort(ratios.begin(), ratios.end());
  const size_t n = ratios.size();
  p.median = n % 2 ? ratios[n / 2] : (ratios[n / 2 - 1] + ratios[n / 2]) / 2;
  p.min = ratios.front();
  p.max = ratios.back();
  p.rounds = static_cast<int>(n);
  p.skipped = static_cast<int>(std::max(values.size(), baseline.size()) - n);
  return p;
}

std::string FormatPairedRatio(const PairedRatio& r) {
  const char* fewer = r.skipped > 0 ? "*" : "";
  if (r.rounds < 2) return absl::StrFormat("x%.2f%s", r.median, fewer);
  if (!r.measurable()) return absl::StrFormat("~1 [%.2f-%.2f]%s", r.min, r.max, fewer);
  return absl::StrFormat("x%.2f [%.2f-%.2f]%s", r.median, r.min, r.max, fewer);
}

std::string FormatPairedShare(const PairedRatio& s) {
  const char* fewer = s.skipped > 0 ? "*" : "";
  if (s.rounds < 2) return absl::StrFormat("%.0f%%%s", s.median * 100, fewer);
  return absl::StrFormat("%.0f%% [%.0f-%.0f]%s", s.median * 100, s.min * 100, s.max * 100, fewer);
}

std::string PairedRatioLegend(int rounds, const std::string& baseline, bool any_skipped) {
  std::string legend =
      rounds < 2 ? absl::StrCat("ratios to ", baseline, ": ", rounds, " round: no spread")
                 : absl::StrCat("ratios to ", baseline, ": xM [min-max] = median of the ", rounds,
                                " per-round ratios (round r over ", baseline,
                                "'s round r) and their min-max; ~1 = the spread includes 1: no measurable difference");
  if (any_skipped) {
    absl::StrAppend(&legend,
                    "; * = over fewer rounds: a round where either value was n/a or the divisor 0 is "
                    "left out");
  }
  return legend;
}

}  // namespace reco
