// Prometheus text and InfluxDB line renderers. See report_renderers.h.
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "client/report/report_figures.h"
#include "client/report/report_renderers.h"

namespace reco {
namespace {

// A label value in the exposition format: backslash, quote and newline escaped.
std::string PromLabel(const std::string& value) {
  return absl::StrReplaceAll(value, {{"\\", "\\\\"}, {"\"", "\\\""}, {"\n", "\\n"}});
}

// A tag value in the line protocol: comma, equals sign and space escaped.
std::string InfluxTag(const std::string& value) {
  return absl::StrReplaceAll(value, {{"\\", "\\\\"}, {",", "\\,"}, {"=", "\\="}, {" ", "\\ "}, {"\n", "\\ "}});
}

std::string Number(double v) { return absl::StrFormat("%.9g", v); }

// `run="NAME",tag="value",...` for the run's --name and --tags (empty when neither).
std::string PromRunLabels(const LoadOptions& o) {
  std::string labels;
  if (!o.name.empty()) absl::StrAppend(&labels, "run=\"", PromLabel(o.name), "\",");
  for (const auto& [key, value] : o.tags) absl::StrAppend(&labels, key, "=\"", PromLabel(value), "\",");
  return labels;
}

}  // namespace

std::string RenderPrometheus(const RunReport& report) {
  const std::vector<Figure> figures = ReportFigures(report.options);
  const std::string run = PromRunLabels(report.options);
  std::string out =
      "# HELP reco_load_figure A figure of the run per target, as the JSON's figures (reco_load --prometheus).\n"
      "# TYPE reco_load_figure gauge\n";
  for (const TargetResult& t : report.targets) {
    for (const Figure& f : figures) {
      if (std::optional<double> v = f.Of(t)) {
        absl::StrAppend(&out, "reco_load_figure{", run, "target=\"", PromLabel(t.spec.name), "\",figure=\"", f.key,
                        "\"} ", Number(*v), "\n");
      }
    }
  }
  absl::StrAppend(&out,
                  "# HELP reco_load_ratio_to_baseline A figure's paired ratio to the first target over the rounds: "
                  "median, min and max.\n"
                  "# TYPE reco_load_ratio_to_baseline gauge\n");
  for (size_t i = 1; i < report.targets.size(); ++i) {
    for (const Figure& f : figures) {
      std::optional<PairedRatio> r = RatioToBaseline(report, i, f);
      if (!r) continue;
      for (auto [stat, value] : {std::pair{"median", r->median}, std::pair{"min", r->min}, std::pair{"max", r->max}}) {
        absl::StrAppend(&out, "reco_load_ratio_to_baseline{", run, "target=\"", PromLabel(report.targets[i].spec.name),
                        "\",baseline=\"", PromLabel(report.targets[0].spec.name), "\",figure=\"", f.key, "\",stat=\"",
                        stat, "\"} ", Number(value), "\n");
      }
    }
  }
  return out;
}

std::string RenderInflux(const RunReport& report, int64_t timestamp_ns) {
  const std::vector<Figure> figures = ReportFigures(report.options);
  std::string tags;
  if (!report.options.name.empty()) absl::StrAppend(&tags, ",run=", InfluxTag(report.options.name));
  for (const auto& [key, value] : report.options.tags)
    absl::StrAppend(&tags, ",", InfluxTag(key), "=", InfluxTag(value));
  std::string out;
  for (const TargetResult& t : report.targets) {
    std::vector<std::string> fields;
    for (const Figure& f : figures) {
      if (std::optional<double> v = f.Of(t)) fields.push_back(absl::StrCat(f.key, "=", Number(*v)));
    }
    if (fields.empty()) continue;
    absl::StrAppend(&out, "reco_load,target=", InfluxTag(t.spec.name), tags, " ", absl::StrJoin(fields, ","), " ",
                    timestamp_ns, "\n");
  }
  return out;
}

}  // namespace reco
