//! The interleaving as a table with one column per thread: each step's
//! operation and object in its thread's column, its `file:line` and the
//! source line's text beside it, context switches marked (`>`), the bug's
//! steps highlighted (`*`), long runs of one thread folded.

use super::names::Names;
use super::style::Style;
use super::{object_text, Role};
use crate::trace::Trace;
use reach_channel::OpKind;
use std::fmt::Write;

/// A run of one thread's steps longer than this is folded...
pub const FOLD_RUN: usize = 8;
/// ...to its first this many steps...
const FOLD_HEAD: usize = 3;
/// ...and its last this many.
const FOLD_TAIL: usize = 2;
/// Widest thread column.
const MAX_CELL: usize = 30;
/// Widest location column, but for the file name and line, which are
/// never cut.
const MAX_PLACE: usize = 28;

/// One shown row.
struct Row {
    step: usize,
    thread: usize,
    cell: String,
    place: String,
    source: String,
    role: Option<Role>,
    switch: bool,
}

/// Cuts `text` to `width` characters, marking the cut with `~`.
fn fit(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(width.saturating_sub(1)).collect();
    cut.push('~');
    cut
}

/// Shortens a `dir/file:line` location to `width` characters by leaving
/// out leading directories (`.../dir/file.c:50`); the file name and line
/// are always kept whole, even if they alone are wider.
fn fit_place(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let components: Vec<&str> = text.split('/').collect();
    let mut kept = components.len() - 1;
    let mut length = components[kept].chars().count() + ".../".len();
    while kept > 0 {
        let wider = length + components[kept - 1].chars().count() + 1;
        if wider > width {
            break;
        }
        length = wider;
        kept -= 1;
    }
    if kept == 0 {
        return text.to_string();
    }
    format!(".../{}", components[kept..].join("/"))
}

/// Steps a folded run always shows: those that change which threads exist
/// or what they hold or wait for (spawns, joins, exits, locks, condition
/// variables, semaphores, barriers, ...), everything but memory accesses,
/// fences, yields, sleeps and awaits.
fn always_shown(kind: OpKind) -> bool {
    !(kind.is_memory_access()
        || matches!(
            kind,
            OpKind::Fence | OpKind::Yield | OpKind::Sleep | OpKind::Await
        ))
}

/// `N steps elided` (`1 step elided`).
pub fn elided(n: usize) -> String {
    match n {
        1 => "1 step elided".to_string(),
        n => format!("{n} steps elided"),
    }
}

/// Pads `text` to `width` characters (after styling, so counted before).
fn pad(text: &str, styled: String, width: usize) -> String {
    let n = text.chars().count();
    format!("{styled}{}", " ".repeat(width.saturating_sub(n)))
}

/// Which of `shown` (step indices in order) a folded table keeps: runs of
/// one thread longer than [`FOLD_RUN`] keep their head, their tail, the
/// bug's steps and every step [`always_shown`]; each dropped stretch is
/// `Err(count)`.
fn fold(trace: &Trace, shown: &[usize], keep: &[usize]) -> Vec<Result<usize, usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < shown.len() {
        let thread = trace.events[shown[start]].thread;
        let mut end = start;
        while end < shown.len()
            && trace.events[shown[end]].thread == thread
            && (end == start || shown[end] == shown[end - 1] + 1)
        {
            end += 1;
        }
        let run = &shown[start..end];
        if run.len() > FOLD_RUN {
            let mut dropped = 0;
            for (k, &i) in run.iter().enumerate() {
                if k < FOLD_HEAD
                    || k >= run.len() - FOLD_TAIL
                    || keep.contains(&i)
                    || always_shown(trace.events[i].op.kind)
                {
                    if dropped > 0 {
                        out.push(Err(dropped));
                        dropped = 0;
                    }
                    out.push(Ok(i));
                } else {
                    dropped += 1;
                }
            }
        } else {
            out.extend(run.iter().map(|&i| Ok(i)));
        }
        start = end;
    }
    out
}

/// Writes the table of the steps `shown` of `trace` (indices in order;
/// gaps between them are reported as elided), highlighting `bug`.
pub fn render(
    out: &mut String,
    trace: &Trace,
    shown: &[usize],
    bug: &[(usize, Role)],
    names: &Names,
    style: Style,
) {
    let threads = trace.thread_count();
    let keep: Vec<usize> = bug.iter().map(|b| b.0).collect();
    let mut rows: Vec<Result<Row, usize>> = Vec::new();
    let mut next = 0;
    let mut previous: Option<u32> = None;
    for item in fold(trace, shown, &keep) {
        let i = match item {
            Ok(i) => i,
            Err(n) => {
                // The folded steps directly follow the last one shown.
                rows.push(Err(n));
                next += n;
                continue;
            }
        };
        if i > next {
            rows.push(Err(i - next));
        }
        next = i + 1;
        let e = &trace.events[i];
        let object = object_text(trace, i, names);
        let cell = if object.is_empty() {
            e.op.kind.name().to_string()
        } else {
            format!("{} {object}", e.op.kind.name())
        };
        let place = names.step_place(e.site, trace.caller(i));
        let source = place
            .as_ref()
            .and_then(|p| names.source_line(p))
            .unwrap_or_default();
        rows.push(Ok(Row {
            step: i,
            thread: e.thread as usize,
            cell,
            place: place.map(|p| p.short()).unwrap_or_default(),
            source,
            role: bug.iter().find(|b| b.0 == i).map(|b| b.1),
            switch: previous.is_some_and(|p| p != e.thread),
        }));
        previous = Some(e.thread);
    }
    if next < trace.len() && !shown.is_empty() {
        rows.push(Err(trace.len() - next));
    }
    let mut widths = vec![4usize; threads];
    let mut place_width = 8;
    for row in rows.iter().flatten() {
        if let Some(w) = widths.get_mut(row.thread) {
            *w = (*w).max(fit(&row.cell, MAX_CELL).chars().count());
        }
        place_width = place_width.max(fit_place(&row.place, MAX_PLACE).chars().count());
    }
    for (t, w) in widths.iter_mut().enumerate() {
        *w = (*w).max(format!("T{t}").len());
    }
    let mut header = format!("   {:>5}", "step");
    for (t, w) in widths.iter().enumerate() {
        let _ = write!(header, "  {:<w$}", format!("T{t}"));
    }
    let _ = write!(header, "  {:<place_width$}  source", "location");
    let _ = writeln!(out, "{}", style.heading(header.trim_end()));
    for row in &rows {
        let row = match row {
            Ok(row) => row,
            Err(n) => {
                let _ = writeln!(out, "{}", style.dim(&format!("  ... {}", elided(*n))));
                continue;
            }
        };
        let mark = match (row.role.is_some(), row.switch) {
            (true, _) => style.bug("*"),
            (false, true) => style.switch(">"),
            _ => " ".to_string(),
        };
        let mut line = format!("{mark}  {:>5}", row.step);
        for (t, w) in widths.iter().enumerate() {
            let text = if t == row.thread {
                fit(&row.cell, MAX_CELL)
            } else {
                String::new()
            };
            let styled = if row.role.is_some() {
                style.bug(&text)
            } else {
                text.clone()
            };
            let _ = write!(line, "  {}", pad(&text, styled, *w));
        }
        let place = fit_place(&row.place, MAX_PLACE);
        let _ = write!(line, "  {}", pad(&place, place.clone(), place_width));
        let _ = write!(line, "  {}", style.dim(&row.source));
        if let Some(role) = row.role {
            let _ = write!(line, "  {}", style.bug(&format!("<- {}", role.word())));
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::report::tests::trace_of;

    #[test]
    fn long_runs_of_one_thread_fold_but_keep_the_bugs_steps() {
        let mut threads = vec![0u32; 20];
        threads.extend([1, 1, 0]);
        let trace = trace_of(&threads);
        let shown: Vec<usize> = (0..trace.len()).collect();
        let folded = fold(&trace, &shown, &[10]);
        let kept: Vec<usize> = folded.iter().filter_map(|r| r.ok()).collect();
        assert_eq!(kept, vec![0, 1, 2, 10, 18, 19, 20, 21, 22]);
        let dropped: Vec<usize> = folded.iter().filter_map(|r| r.err()).collect();
        assert_eq!(dropped, vec![7, 7]);
    }

    #[test]
    fn folded_runs_keep_spawns_joins_and_locks() {
        let mut trace = trace_of(&[0; 20]);
        trace.events[5].op.kind = OpKind::ThreadCreate;
        trace.events[7].op.kind = OpKind::MutexLock;
        trace.events[12].op.kind = OpKind::ThreadJoin;
        let shown: Vec<usize> = (0..trace.len()).collect();
        let folded = fold(&trace, &shown, &[]);
        let kept: Vec<usize> = folded.iter().filter_map(|r| r.ok()).collect();
        assert_eq!(kept, vec![0, 1, 2, 5, 7, 12, 18, 19]);
        let dropped: Vec<usize> = folded.iter().filter_map(|r| r.err()).collect();
        assert_eq!(dropped, vec![2, 1, 4, 5]);
    }

    fn rendered(trace: &Trace, shown: &[usize]) -> String {
        let binary = crate::binary::Binary {
            instrumented: false,
            sites: Default::default(),
            path: None,
        };
        let names = Names::new(&binary);
        let mut out = String::new();
        render(&mut out, trace, shown, &[], &names, Style::plain());
        out
    }

    #[test]
    fn each_elided_stretch_is_said_once() {
        let mut threads = vec![0u32; 20];
        threads.extend([1, 1]);
        threads.extend([0; 10]);
        let trace = trace_of(&threads);
        // Shown: a folded run of 20, a gap of 2 steps, a run of 5.
        let mut shown: Vec<usize> = (0..20).collect();
        shown.extend(22..27);
        let out = rendered(&trace, &shown);
        let elided: Vec<&str> = out.lines().filter(|l| l.contains("elided")).collect();
        assert_eq!(
            elided,
            vec![
                "  ... 15 steps elided",
                "  ... 2 steps elided",
                "  ... 5 steps elided"
            ],
            "{out}"
        );
    }

    #[test]
    fn locations_lose_directories_never_the_file_name() {
        assert_eq!(fit_place("a.c:3", 28), "a.c:3");
        assert_eq!(
            fit_place("c-examples/dining_philosophers.c:50", 28),
            ".../dining_philosophers.c:50"
        );
        assert_eq!(
            fit_place("/home/user/src/project/lib/queue.c:120", 28),
            ".../project/lib/queue.c:120"
        );
        assert_eq!(
            fit_place("src/a_very_long_file_name_of_a_module.c:7", 28),
            ".../a_very_long_file_name_of_a_module.c:7"
        );
        assert_eq!(
            fit_place("a_very_long_file_name_of_a_module.c:7", 28),
            "a_very_long_file_name_of_a_module.c:7"
        );
    }

    #[test]
    fn one_column_per_thread_and_switches_marked() {
        let trace = trace_of(&[0, 1, 1, 0]);
        let binary = crate::binary::Binary {
            instrumented: false,
            sites: Default::default(),
            path: None,
        };
        let names = Names::new(&binary);
        let mut out = String::new();
        render(
            &mut out,
            &trace,
            &[0, 1, 2, 3],
            &[(2, Role::Race)],
            &names,
            Style::plain(),
        );
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines[0].contains("T0") && lines[0].contains("T1"), "{out}");
        let column = |line: &str| line.find("LOAD");
        assert_eq!(column(lines[1]), column(lines[4]), "{out}");
        assert!(column(lines[2]) > column(lines[1]), "{out}");
        assert!(
            lines[2].starts_with('>') && lines[4].starts_with('>'),
            "{out}"
        );
        assert!(
            lines[3].starts_with('*') && lines[3].contains("<- race"),
            "{out}"
        );
    }
}
