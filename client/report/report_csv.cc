// The CSV report. See report_renderers.h.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "client/report/report_figures.h"
#include "client/report/report_renderers.h"

namespace reco {

std::string RenderCsv(const RunReport& report) {
  const std::vector<Figure> figures = ReportFigures(report.options);
  const bool ceiling = report.CeilingIndex() >= 0;
  std::vector<std::string> header = {"target", "address", "round"};
  for (const Figure& f : figures) header.push_back(f.key);
  if (ceiling) header.push_back("qps_share_of_ceiling");
  std::string out = absl::StrJoin(header, ",") + "\n";
  auto cell = [](std::optional<double> v, int decimals) {
    return v ? absl::StrFormat("%.*f", decimals, *v) : std::string();
  };
  for (size_t ti = 0; ti < report.targets.size(); ++ti) {
    const TargetResult& t = report.targets[ti];
    const std::optional<PairedRatio> share = ceiling ? report.PairedQpsShareOfCeiling(ti) : std::nullopt;
    auto row = [&](const std::string& round, const std::vector<std::string>& figure_cells,
                   std::optional<double> share_cell) {
      // A replicated target's address lists its backends with commas: quoted (RFC 4180).
      const std::string address =
          t.spec.address.find(',') == std::string::npos ? t.spec.address : absl::StrCat("\"", t.spec.address, "\"");
      std::vector<std::string> cells = {t.spec.name, address, round};
      cells.insert(cells.end(), figure_cells.begin(), figure_cells.end());
      if (ceiling) cells.push_back(cell(share_cell, 4));
      absl::StrAppend(&out, absl::StrJoin(cells, ","), "\n");
    };
    for (size_t k = 0; k < t.rounds.size(); ++k) {
      std::vector<std::string> cells;
      for (const Figure& f : figures) cells.push_back(cell(f.Of(t.rounds[k]), f.decimals));
      row(absl::StrCat(t.rounds[k].round), cells,
          share && k < share->by_round.size() ? share->by_round[k] : std::nullopt);
    }
    std::vector<std::string> totals;
    for (const Figure& f : figures) totals.push_back(cell(f.Of(t), f.decimals));
    row("all", totals, ceiling ? report.QpsShareOfCeiling(ti) : std::nullopt);
    // The paired ratios to the baseline (and the paired share of the ceiling).
    std::vector<std::optional<PairedRatio>> ratios;
    for (const Figure& f : figures) ratios.push_back(RatioToBaseline(report, ti, f));
    auto part = [](const std::optional<PairedRatio>& r, double PairedRatio::*field) {
      return r ? std::optional<double>((*r).*field) : std::nullopt;
    };
    for (auto [name, field] : {std::pair{"ratio_median", &PairedRatio::median},
                               std::pair{"ratio_min", &PairedRatio::min}, std::pair{"ratio_max", &PairedRatio::max}}) {
      std::vector<std::string> cells;
      for (const std::optional<PairedRatio>& r : ratios) cells.push_back(cell(part(r, field), 4));
      row(name, cells, part(share, field));
    }
  }
  return out;
}

}  // namespace reco
