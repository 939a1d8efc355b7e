//! The picture written with `--html FILE`: one self-contained HTML page
//! (inline CSS, SVG and a few lines of script; nothing fetched) with the
//! run's summary and a space-time diagram of one execution: a vertical lane
//! per thread, time going down, each step a labelled point on its thread's
//! lane, arrows for synchronisation (unlock → lock, signal → wake-up,
//! create, join, post → wait), under `--memory-model rc11` dashed arrows
//! for stale accesses (from the older store a load read, or from the
//! "initial values" point above the lanes for a load of an initial value,
//! from a store to the earlier-run store it precedes in modification
//! order), the bug's
//! steps in red and a racing pair joined by a dashed line. Hovering a step
//! shows its source line (and, for a stale access, what it read).

use super::names::Names;
use super::private::private_access;
use super::stale::{initial_reads, stale_edges, stale_lines, StaleEdge};
use super::{bug_steps, object_text, sync_edges, EdgeKind, Role};
use crate::explore::{Finding, Summary};
use crate::trace::Trace;
use std::fmt::Write;

/// Width of a thread's lane, in pixels.
const LANE: usize = 230;
/// Height of a step's row.
const ROW: usize = 24;
/// Space above the first row (lane titles).
const TOP: usize = 56;
/// Left margin (step numbers).
const LEFT: usize = 70;
/// Longest label drawn beside a point.
const LABEL: usize = 30;

/// Escapes text for HTML and SVG.
fn esc(text: &str) -> String {
    super::junit::escape(text)
}

/// What the page draws: the summary of the run, and one execution (the
/// bug's, or a replayed one without bug).
pub struct Page<'a> {
    /// The program and its arguments.
    pub command: String,
    /// The run's summary.
    pub summary: &'a Summary,
    /// The bug, if one was found.
    pub finding: Option<&'a Finding>,
    /// The execution drawn (the bug's trace, or a replayed one).
    pub trace: Option<&'a Trace>,
    /// The command that replays the drawn execution.
    pub replay: Option<String>,
}

/// Renders `page` as one HTML document.
pub fn render(page: &Page, names: &Names) -> String {
    let summary = page.summary;
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    let title = match page.finding {
        Some(f) => format!("reach-native: {} in {}", f.bug.kind, page.command),
        None => format!("reach-native: {}", page.command),
    };
    let _ = writeln!(out, "<title>{}</title>", esc(&title));
    out.push_str(STYLE);
    out.push_str("</head>\n<body>\n");
    let _ = writeln!(out, "<h1>{}</h1>", esc(&title));
    out.push_str("<table class=\"summary\">\n");
    let mut row = |k: &str, v: &str| {
        let _ = writeln!(out, "<tr><th>{}</th><td>{}</td></tr>", esc(k), esc(v));
    };
    row("program", &page.command);
    if let Some(f) = page.finding {
        row("bug", &f.bug.kind.to_string());
        row("explanation", super::bug_message(f, names).trim_end());
        row("found in execution", &f.execution.to_string());
    } else {
        row("bug", "none");
    }
    row("strategy", summary.strategy);
    row("executions", &summary.executions.to_string());
    if let Some(orders) = summary.partial_orders {
        row("distinct behaviours", &orders.to_string());
    }
    row("stopped", &super::json::stop_reason(&summary.stop));
    row("coverage", &super::coverage_line(summary));
    row("time", &format!("{:.2} s", summary.elapsed.as_secs_f64()));
    if let Some(sym) = page
        .trace
        .and_then(|t| t.symbolic.as_ref())
        .filter(|s| !s.inputs.is_empty())
    {
        row("inputs", &sym.inputs_text());
    }
    if let Some(command) = &page.replay {
        row("replay", command);
    }
    out.push_str("</table>\n");
    if let Some(trace) = page.trace {
        diagram(&mut out, trace, page.finding, names);
    }
    if let Some(f) = page.finding {
        for (name, bytes) in [("stdout", &f.outcome.stdout), ("stderr", &f.outcome.stderr)] {
            if !bytes.is_empty() {
                let _ = writeln!(
                    out,
                    "<h2>Program {name}</h2>\n<pre class=\"output\">{}</pre>",
                    esc(&String::from_utf8_lossy(bytes))
                );
            }
        }
    }
    out.push_str(SCRIPT);
    out.push_str("</body>\n</html>\n");
    out
}

/// The space-time diagram of `trace`.
fn diagram(out: &mut String, trace: &Trace, finding: Option<&Finding>, names: &Names) {
    let shown: Vec<usize> = match finding {
        Some(f) => super::shown_steps(f),
        None if trace.len() <= super::FULL_TRACE_STEPS => (0..trace.len()).collect(),
        None => (trace.len() - super::FULL_TRACE_STEPS..trace.len()).collect(),
    };
    let bug: Vec<(usize, Role)> = finding.map(bug_steps).unwrap_or_default();
    // Row of each shown step; an elided stretch takes a row of its own.
    let mut rows = Vec::new();
    let mut row_of = std::collections::HashMap::new();
    let mut next = 0;
    for &i in &shown {
        if i > next {
            rows.push(Err(i - next));
        }
        row_of.insert(i, rows.len());
        rows.push(Ok(i));
        next = i + 1;
    }
    if next < trace.len() {
        rows.push(Err(trace.len() - next));
    }
    let threads = trace.thread_count();
    let width = LEFT + threads * LANE + 40;
    let height = TOP + rows.len() * ROW + 20;
    let x = |t: usize| LEFT + t * LANE + 20;
    let y = |r: usize| TOP + r * ROW + ROW / 2;
    let stale = stale_edges(trace);
    let initial = initial_reads(trace);
    let stale_legend = if stale.is_empty() && initial.is_empty() {
        ""
    } else {
        " Dashed (--memory-model rc11): <span class=\"k-rf\">the older store (or <i>init</i>, the initial values) → the load that read it</span>, \
         <span class=\"k-mo\">a store → the earlier-run store it precedes in modification order</span>."
    };
    let _ = writeln!(
        out,
        "<h2>Interleaving</h2>\n<p class=\"legend\">Time goes down; one lane per thread. \
         <span class=\"k-bug\">Red</span>: the bug's steps. Arrows: \
         <span class=\"k-lock\">unlock → lock</span>, <span class=\"k-signal\">signal → wake-up</span>, \
         <span class=\"k-create\">create / join</span>, <span class=\"k-post\">post → wait</span>.{stale_legend} \
         Hover a step for its source line.</p>\n<div id=\"info\">{}</div>",
        esc(&info_text(trace, &bug, names))
    );
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"diagram\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\">"
    );
    out.push_str(
        "<defs>\
         <marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\">\
         <path d=\"M0,0 L10,5 L0,10 z\" fill=\"#555\"/></marker></defs>\n",
    );
    for t in 0..threads {
        let steps = trace.events_of(t as u32).len();
        let _ = writeln!(
            out,
            "<g class=\"lane\" data-thread=\"{t}\"><text class=\"lane-title\" x=\"{}\" y=\"{}\">T{t}</text>\
             <text class=\"lane-sub\" x=\"{}\" y=\"{}\">{steps} steps</text>\
             <line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/></g>",
            x(t),
            TOP - 30,
            x(t),
            TOP - 14,
            x(t),
            TOP - 6,
            x(t),
            height - 10
        );
    }
    let sync = sync_edges(trace).into_iter().map(|(from, to, kind)| {
        let class = match kind {
            EdgeKind::Lock => "lock",
            EdgeKind::Signal => "signal",
            EdgeKind::Create | EdgeKind::Join => "create",
            EdgeKind::Post => "post",
        };
        (from, to, class)
    });
    let stale_arrows = stale.iter().map(|&(from, to, kind)| {
        let class = match kind {
            StaleEdge::ReadsFrom => "rf",
            StaleEdge::ModificationOrder => "mo",
        };
        (from, to, class)
    });
    for (from, to, class) in sync.chain(stale_arrows) {
        let (Some(&a), Some(&b)) = (row_of.get(&from), row_of.get(&to)) else {
            continue;
        };
        let (ta, tb) = (
            trace.events[from].thread as usize,
            trace.events[to].thread as usize,
        );
        // End the arrow at the target point's rim, not its centre.
        let (x1, y1, x2, y2) = (x(ta) as f64, y(a) as f64, x(tb) as f64, y(b) as f64);
        let length = ((x2 - x1).powi(2) + (y2 - y1).powi(2)).sqrt().max(1.0);
        let (ex, ey) = (x2 - (x2 - x1) * 7.0 / length, y2 - (y2 - y1) * 7.0 / length);
        let _ = writeln!(
            out,
            "<line class=\"edge {class}\" data-from=\"{from}\" data-to=\"{to}\" x1=\"{x1}\" y1=\"{y1}\" x2=\"{ex:.1}\" y2=\"{ey:.1}\" marker-end=\"url(#arrow)\"/>"
        );
    }
    // Loads of an initial value: from the "init" point above the lanes.
    let (ix, iy) = (LEFT / 2, TOP - 22);
    let drawn: Vec<(usize, usize)> = initial
        .iter()
        .filter_map(|&to| row_of.get(&to).map(|&r| (to, r)))
        .collect();
    if !drawn.is_empty() {
        let _ = writeln!(
            out,
            "<circle class=\"init\" cx=\"{ix}\" cy=\"{iy}\" r=\"4\"/><text class=\"lane-sub\" x=\"{ix}\" y=\"{}\">init</text>",
            iy - 8
        );
    }
    for (to, r) in drawn {
        let (x1, y1) = (ix as f64, iy as f64);
        let (x2, y2) = (x(trace.events[to].thread as usize) as f64, y(r) as f64);
        let length = ((x2 - x1).powi(2) + (y2 - y1).powi(2)).sqrt().max(1.0);
        let (ex, ey) = (x2 - (x2 - x1) * 7.0 / length, y2 - (y2 - y1) * 7.0 / length);
        let _ = writeln!(
            out,
            "<line class=\"edge rf-init\" data-from=\"init\" data-to=\"{to}\" x1=\"{x1}\" y1=\"{y1}\" x2=\"{ex:.1}\" y2=\"{ey:.1}\" marker-end=\"url(#arrow)\"/>"
        );
    }
    if let Some(race) = finding.and_then(|f| f.bug.race) {
        if let (Some(&a), Some(&b)) = (row_of.get(&race.first), row_of.get(&race.second)) {
            let _ = writeln!(
                out,
                "<line class=\"race-link\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>",
                x(trace.events[race.first].thread as usize),
                y(a),
                x(trace.events[race.second].thread as usize),
                y(b)
            );
        }
    }
    let stale_text = stale_lines(trace, names);
    let private = finding
        .and_then(|f| f.bug.race)
        .and_then(|race| Some((race.first, private_access(&race, trace, names)?)));
    for (r, item) in rows.iter().enumerate() {
        let i = match item {
            Ok(i) => *i,
            Err(n) => {
                let _ = writeln!(
                    out,
                    "<text class=\"elided\" x=\"{LEFT}\" y=\"{}\">… {}</text>",
                    y(r) + 4,
                    super::columns::elided(*n)
                );
                continue;
            }
        };
        let e = &trace.events[i];
        let t = e.thread as usize;
        let object = object_text(trace, i, names);
        let label = if object.is_empty() {
            e.op.kind.name().to_string()
        } else {
            format!("{} {object}", e.op.kind.name())
        };
        let short: String = if label.chars().count() > LABEL {
            label.chars().take(LABEL - 1).chain(['…']).collect()
        } else {
            label.clone()
        };
        let place = names.step_place(e.site, trace.caller(i));
        let location = place.as_ref().map(|p| p.long()).unwrap_or_default();
        let source = place
            .as_ref()
            .and_then(|p| names.source_line(p))
            .unwrap_or_default();
        let role = bug.iter().find(|b| b.0 == i).map(|b| b.1);
        let class = if role.is_some() { "step bug" } else { "step" };
        let mut tip = format!("step {i}, T{t}: {label}");
        if !location.is_empty() {
            tip.push_str(&format!("\n{location}"));
        }
        if !source.is_empty() {
            tip.push_str(&format!("\n    {source}"));
        }
        if let Some(role) = role {
            tip.push_str(&format!("\n({})", role.word()));
        }
        if let Some((_, line)) = stale_text.iter().find(|(s, _)| *s == i) {
            tip.push_str(&format!("\n{line}"));
        }
        if let Some((_, p)) = private.as_ref().filter(|(s, _)| *s == i) {
            tip.push_str(&format!(
                "\nthe race's first access ran {} this step, no step of its own: T{} {} {}\n{}",
                p.side, p.thread, p.op, p.object, p.location
            ));
        }
        let _ = writeln!(
            out,
            "<g class=\"{class}\" data-step=\"{i}\" data-thread=\"{t}\" data-op=\"{}\" data-location=\"{}\" data-source=\"{}\">\
             <title>{}</title><text class=\"num\" x=\"{}\" y=\"{}\">{i}</text>\
             <circle cx=\"{}\" cy=\"{}\" r=\"5\"/><text class=\"label\" x=\"{}\" y=\"{}\">{}</text></g>",
            esc(e.op.kind.name()),
            esc(&location),
            esc(&source),
            esc(&tip),
            LEFT - 12,
            y(r) + 4,
            x(t),
            y(r),
            x(t) + 10,
            y(r) + 4,
            esc(&short)
        );
    }
    out.push_str("</svg>\n");
}

/// What the info panel above the diagram shows before a step is hovered:
/// the bug's last step as hovering it would, else how to use the panel.
fn info_text(trace: &Trace, bug: &[(usize, Role)], names: &Names) -> String {
    let Some((i, role)) = bug.iter().max_by_key(|b| b.0).copied() else {
        return "Hover a step to see its operation, source location and line here.".into();
    };
    let Some(e) = trace.events.get(i) else {
        return String::new();
    };
    let object = object_text(trace, i, names);
    let mut text = format!("step {i}, T{}: {}", e.thread, e.op.kind.name());
    if !object.is_empty() {
        text.push_str(&format!(" {object}"));
    }
    text.push_str(&format!(" ({})", role.word()));
    let place = names.step_place(e.site, trace.caller(i));
    match &place {
        Some(p) => text.push_str(&format!("\n{}", p.long())),
        None => text.push_str("\n(no source location)"),
    }
    if let Some(source) = place.as_ref().and_then(|p| names.source_line(p)) {
        text.push_str(&format!("\n    {source}"));
    }
    text
}

const STYLE: &str = "<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.3em; } h2 { font-size: 1.1em; margin-top: 1.5em; }
table.summary { border-collapse: collapse; }
table.summary th { text-align: left; padding: 2px 12px 2px 0; color: #555; vertical-align: top; }
table.summary td { white-space: pre-wrap; font-family: ui-monospace, monospace; }
.legend { color: #555; }
#info { font-family: ui-monospace, monospace; background: #f4f4f4; padding: 6px; min-height: 3.6em; white-space: pre; position: sticky; top: 0; }
svg text { font-family: ui-monospace, monospace; font-size: 12px; }
.lane line { stroke: #bbb; stroke-width: 2; }
.lane-title { font-weight: bold; font-size: 14px; }
.lane-sub { fill: #777; font-size: 11px; }
.step circle { fill: #3465a4; }
.step.bug circle { fill: #cc0000; r: 7; }
.step.bug .label { fill: #cc0000; font-weight: bold; }
.step:hover circle { stroke: #000; stroke-width: 2; }
.step:hover .label { text-decoration: underline; }
.num { fill: #999; text-anchor: end; }
.elided { fill: #999; font-style: italic; }
.edge { stroke-width: 1.5; fill: none; }
.edge.lock { stroke: #4e9a06; } .edge.signal { stroke: #c4a000; }
.edge.create { stroke: #75507b; } .edge.post { stroke: #ce5c00; }
.edge.rf, .edge.rf-init { stroke: #06989a; stroke-dasharray: 5 3; } .init { fill: #06989a; } .edge.mo { stroke: #5c3566; stroke-dasharray: 2 3; }
.race-link { stroke: #cc0000; stroke-width: 2; stroke-dasharray: 6 4; }
.k-bug { color: #cc0000; } .k-lock { color: #4e9a06; } .k-signal { color: #c4a000; }
.k-create { color: #75507b; } .k-post { color: #ce5c00; }
.k-rf { color: #06989a; } .k-mo { color: #5c3566; }
pre.output { background: #f4f4f4; padding: 6px; }
</style>
";

const SCRIPT: &str = "<script>
for (const g of document.querySelectorAll('.step')) {
  g.addEventListener('mouseenter', () => {
    const d = g.dataset;
    document.getElementById('info').textContent =
      'step ' + d.step + ', T' + d.thread + ': ' + g.querySelector('.label').textContent +
      '\\n' + (d.location || '(no source location)') + '\\n    ' + (d.source || '');
  });
}
</script>
";
