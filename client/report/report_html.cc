// The HTML report: one self-contained page (inline CSS and SVG, no scripts, nothing
// fetched). See report_renderers.h.
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/noise_guard.h"
#include "client/report/report_charts.h"
#include "client/report/report_figures.h"
#include "client/report/report_renderers.h"
#include "client/report/report_verdict.h"
#include "client/report/svg_chart.h"
#include "core/request.h"

namespace reco {
namespace {

std::string FigureTable(const RunReport& report) {
  std::string s = "<table>\n<tr><th></th>";
  for (const TargetResult& t : report.targets) absl::StrAppend(&s, "<th>", EscapeXml(t.spec.name), "</th>");
  absl::StrAppend(&s, "</tr>\n");
  bool any_skipped = false;  // some ratio is over fewer rounds: the legend says what "*" means
  std::vector<std::string> left_out;
  for (const Figure& f : ShownFigures(report, &left_out)) {
    absl::StrAppend(&s, "<tr><td>", EscapeXml(f.label), "</td>");
    for (size_t i = 0; i < report.targets.size(); ++i) {
      std::string ratio;
      if (std::optional<PairedRatio> r = i > 0 ? RatioToBaseline(report, i, f) : std::nullopt) {
        ratio = absl::StrCat(" <span class=\"ratio\">", FormatPairedRatio(*r), "</span>");
        any_skipped |= r->skipped > 0;
      }
      absl::StrAppend(&s, "<td>", FormatFigure(f, f.Of(report.targets[i])), ratio, "</td>");
    }
    absl::StrAppend(&s, "</tr>\n");
    if (f.key == "qps" && report.CeilingIndex() >= 0) {
      absl::StrAppend(&s, "<tr><td>QPS share of ceiling</td>");
      for (size_t i = 0; i < report.targets.size(); ++i) {
        std::optional<PairedRatio> v = report.PairedQpsShareOfCeiling(i);
        absl::StrAppend(&s, "<td>", v ? FormatPairedShare(*v) : "n/a", "</td>");
        any_skipped |= v && v->skipped > 0;
      }
      absl::StrAppend(&s, "</tr>\n");
    }
  }
  absl::StrAppend(&s, "</table>\n");
  if (std::string left = LeftOutLine(left_out); !left.empty()) {
    absl::StrAppend(&s, "<p class=\"left-out\">", EscapeXml(left), "</p>\n");
  }
  if (!report.targets.empty()) {
    const int rounds = static_cast<int>(report.targets[0].rounds.size());
    absl::StrAppend(&s, "<p class=\"ratio\">",
                    EscapeXml(PairedRatioLegend(rounds, report.targets[0].spec.name, any_skipped)));
    if (report.CeilingIndex() >= 0 && rounds > 1) {
      absl::StrAppend(&s, ". QPS share of ceiling: median of the per-round shares [min-max]");
    }
    absl::StrAppend(&s, ".</p>\n");
  }
  return s;
}

// The answer first: one line per target against the baseline (client/report/report_verdict.h).
std::string VerdictHtml(const RunReport& report) {
  std::string heading = VerdictHeading(report);
  heading[0] = absl::ascii_toupper(heading[0]);  // a heading here, the table's last lines there
  std::string s = absl::StrCat("<section class=\"verdict\" id=\"verdict\">\n<h2>", EscapeXml(heading), "</h2>\n<ul>\n");
  for (const std::string& line : VerdictLines(report)) {
    absl::StrAppend(&s, "<li class=\"verdict-line\">", EscapeXml(line), "</li>\n");
  }
  if (std::string noise = NoiseVerdict(report); !noise.empty()) {
    absl::StrAppend(&s, "<li class=\"verdict-noise\">", EscapeXml(noise), "</li>\n");
  }
  return s + "</ul>\n</section>\n";
}

// Every warning, folded under its one-line summary: they must not push the charts down.
std::string WarningsHtml(const RunReport& report) {
  if (report.warnings.empty()) return "";
  std::string s = absl::StrCat("<details class=\"warnings\" id=\"warnings\"><summary class=\"warn\">",
                               EscapeXml(WarningSummary(report)), "</summary>\n<ul>\n");
  for (const std::string& w : report.warnings) absl::StrAppend(&s, "<li>", EscapeXml(w), "</li>\n");
  return s + "</ul>\n</details>\n";
}

std::string RunHtml(const RunReport& report) {
  const LoadOptions& o = report.options;
  const RunEnvironment& e = report.environment;
  std::string s = absl::StrFormat(
      "<p class=\"run\">%d round(s) per target, %s warm-up + %s each; %s; %d in flight, %d connection(s); %s. "
      "Baseline for ratios: <b>%s</b>.<br>\n",
      o.rounds, absl::FormatDuration(o.warmup), EscapeXml(DescribeWindow(o)),
      o.open_loop() ? absl::StrFormat("open loop at %g req/s", o.rate) : std::string("closed loop"), o.concurrency,
      o.connections, EscapeXml(DescribeWorkload(o)), EscapeXml(o.targets.empty() ? "" : o.targets[0].name));
  absl::StrAppendFormat(&s, "CPU: %s%s (%d CPUs). protobuf %s, gRPC %s. Client malloc: %s%s. Started %s. %s.</p>\n",
                        EscapeXml(e.cpu_model()),
                        e.cpu_signature().empty() ? "" : absl::StrCat(", ", EscapeXml(e.cpu_signature())), e.cpus(),
                        EscapeXml(e.protobuf_version()), EscapeXml(e.grpc_version()), EscapeXml(e.client_malloc()),
                        e.client_poller().empty() ? "" : absl::StrCat(", gRPC poller: ", EscapeXml(e.client_poller())),
                        EscapeXml(e.started_utc()), EscapeXml(e.tool_version()));
  return s;
}

// Two 660 px charts side by side at 1,400 px; ratio cells never wrap.
constexpr char kStyle[] =
    "body{font-family:sans-serif;margin:16px 24px;color:#222;max-width:1360px}"
    "h1{font-size:22px;margin:4px 0}h2{font-size:17px;margin:10px 0 4px}"
    ".run{color:#555;font-size:13px;margin:4px 0}"
    ".verdict{background:#f4f8fc;border-left:4px solid #1f77b4;padding:4px 12px;margin:8px 0}"
    ".verdict ul{margin:4px 0;padding-left:22px}.verdict li{font-size:16px;margin:3px 0}"
    ".charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(660px,1fr));gap:8px 16px;margin:8px 0}"
    "svg.chart{display:block;border:1px solid #eee}"
    ".absent{margin:2px 0;color:#555}"
    ".figures{overflow-x:auto}table{border-collapse:collapse;margin:12px 0;font-size:13px}"
    "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right;white-space:nowrap}"
    "td:first-child{text-align:left}.ratio{color:#666;font-size:88%}"
    ".warn{color:#a40}details.warnings{margin:8px 0}details.warnings li{color:#a40}";

}  // namespace

std::string RenderHtml(const RunReport& report) {
  const std::string title =
      report.options.name.empty() ? "reco_load report" : absl::StrCat("reco_load report: ", report.options.name);
  std::string s =
      absl::StrCat("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n", "<title>", EscapeXml(title),
                   "</title>\n<style>\n", kStyle, "\n</style></head><body>\n<h1>", EscapeXml(title), "</h1>\n");
  absl::StrAppend(&s, RunHtml(report), VerdictHtml(report));
  absl::StrAppend(&s, ReportChartsHtml(report), WarningsHtml(report));
  absl::StrAppend(&s, "<h2>All figures</h2>\n<div class=\"figures\">\n", FigureTable(report), "</div>\n");
  for (const TargetResult& t : report.targets) {
    if (!t.replicas.empty()) absl::StrAppend(&s, "<p class=\"replicas\">", EscapeXml(ReplicaShareLine(t)), "</p>\n");
  }
  absl::StrAppend(&s, "<p>Command: <code>", EscapeXml(report.environment.command_line()),
                  "</code></p>\n</body></html>\n");
  return s;
}

}  // namespace reco
