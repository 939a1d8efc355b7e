//! `reach-native merge REPORT.json...`: the shards' JSON reports of one
//! sharded search (`--shard I/N`) combined into the result of one run.
//!
//! Report files are untrusted input: anything unexpected is a one-line
//! error naming the file, never a panic. The shards must be of one program
//! build (`program_hash`), one set of search options (`search`), one N and
//! one --shard-split, and every index `0..N` must be there exactly once.

use crate::report::json::ShardSummary;
use serde_json::{json, Map, Value};
use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why shard reports cannot be merged.
#[derive(Debug, Error)]
pub enum MergeError {
    /// A file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A file is not a report this version understands.
    #[error("{path} is not a reach-native JSON report: {why}")]
    Invalid {
        /// The file.
        path: String,
        /// What is wrong with it.
        why: String,
    },
    /// A report of a run without `--shard`.
    #[error("{path} is not a shard's report (it was run without --shard I/N)")]
    NotShard {
        /// The file.
        path: String,
    },
    /// Two reports disagree on something they must share.
    #[error("{path} does not match {first}: {what}")]
    Mismatch {
        /// The file that disagrees.
        path: String,
        /// The first report.
        first: String,
        /// What differs.
        what: String,
    },
    /// Two reports of one index.
    #[error("{path} and {other} are both shard {index}/{count}")]
    Duplicate {
        /// The later file.
        path: String,
        /// The earlier file.
        other: String,
        /// The index.
        index: u32,
        /// Number of shards.
        count: u32,
    },
    /// An index without a report.
    #[error("shard {index}/{count} is missing (its report was not given)")]
    Missing {
        /// The first missing index.
        index: u32,
        /// Number of shards.
        count: u32,
    },
    /// No report given.
    #[error("no report to merge")]
    Empty,
}

/// One shard's report, as far as the merge reads it.
struct ShardReport {
    file: String,
    index: u32,
    count: u32,
    split: u64,
    ran: Option<u64>,
    program: String,
    program_hash: String,
    strategy: String,
    search: Value,
    instrumented: bool,
    executions: u64,
    sleep_blocked: u64,
    await_blocked: u64,
    truncated_executions: u64,
    recorded_bound: Option<u64>,
    completion: String,
    stop_reason: String,
    seconds: f64,
    fingerprints: Vec<String>,
    /// Under `--memory-model rc11`: the keys of its reads-from graphs.
    graphs: Option<Vec<String>>,
    bugs: Vec<Value>,
}

/// The union of the shards of one search.
pub struct Merged {
    /// Number of shards.
    pub count: u32,
    /// The program, as the first report names it.
    pub program: String,
    /// Hash of the program's bytes.
    pub program_hash: String,
    /// The strategy.
    pub strategy: String,
    /// The options the shards share.
    pub search: Value,
    /// Whether the program was instrumented.
    pub instrumented: bool,
    /// Executions, summed.
    pub executions: u64,
    /// Executions cut short by sleep sets, summed.
    pub sleep_blocked: u64,
    /// Executions blocked at an await, summed.
    pub await_blocked: u64,
    /// Executions longer than the recording bound, summed.
    pub truncated_executions: u64,
    /// The recording bound they hit (the largest the shards state).
    pub recorded_bound: Option<u64>,
    /// Fingerprints of the distinct partial orders, united.
    pub fingerprints: BTreeSet<String>,
    /// Under `--memory-model rc11`: the keys of the distinct reads-from
    /// graphs, united.
    pub graphs: Option<BTreeSet<String>>,
    /// Distinct bugs (by kind and signature), in shard order.
    pub bugs: Vec<Value>,
    /// The shards, by index.
    pub shards: Vec<ShardSummary>,
    /// How the whole search ended: `complete` only if every shard is.
    pub completion: &'static str,
    /// Why it stopped, in the words of the first shard that did not complete.
    pub stop_reason: String,
    /// Wall time of the slowest shard.
    pub seconds_max: f64,
    /// Wall time of all shards.
    pub seconds_sum: f64,
}

/// How bad a shard's ending is for the whole: the merged completion is the
/// worst of the shards'.
fn severity(completion: &str) -> u8 {
    match completion {
        "complete" => 0,
        "bug" => 1,
        "bounded" => 2,
        "limit" => 3,
        "interrupted" => 4,
        _ => 5,
    }
}

fn completion_word(completion: &str) -> &'static str {
    match completion {
        "complete" => "complete",
        "bug" => "bug",
        "bounded" => "bounded",
        "limit" => "limit",
        "interrupted" => "interrupted",
        _ => "error",
    }
}

fn invalid(path: &str, why: impl Into<String>) -> MergeError {
    MergeError::Invalid {
        path: path.to_string(),
        why: why.into(),
    }
}

fn field<'a>(report: &'a Value, path: &str, name: &str) -> Result<&'a Value, MergeError> {
    report
        .get(name)
        .ok_or_else(|| invalid(path, format!("no field {name:?}")))
}

fn text(report: &Value, path: &str, name: &str) -> Result<String, MergeError> {
    field(report, path, name)?
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| invalid(path, format!("{name:?} is not a string")))
}

fn number(report: &Value, path: &str, name: &str) -> Result<u64, MergeError> {
    field(report, path, name)?
        .as_u64()
        .ok_or_else(|| invalid(path, format!("{name:?} is not a non-negative integer")))
}

/// Reads one shard's report.
fn read(path: &Path) -> Result<ShardReport, MergeError> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| MergeError::Read {
        path: file.clone(),
        source,
    })?;
    let report: Value =
        serde_json::from_slice(&bytes).map_err(|e| invalid(&file, e.to_string()))?;
    if !report.is_object() {
        return Err(invalid(&file, "not a JSON object"));
    }
    let version = number(&report, &file, "schema_version")?;
    if version != u64::from(crate::report::json::SCHEMA_VERSION) {
        return Err(invalid(
            &file,
            format!(
                "schema version {version}, this reach-native reads {}",
                crate::report::json::SCHEMA_VERSION
            ),
        ));
    }
    let shard = match report.get("shard") {
        Some(shard) if shard.is_object() => shard,
        _ => return Err(MergeError::NotShard { path: file }),
    };
    let index = number(shard, &file, "index")?;
    let count = number(shard, &file, "count")?;
    let split = number(shard, &file, "split")?;
    let ran = shard.get("ran").and_then(Value::as_u64);
    let (Ok(index), Ok(count)) = (u32::try_from(index), u32::try_from(count)) else {
        return Err(invalid(&file, "shard index or count out of range"));
    };
    if count == 0 || index >= count {
        return Err(invalid(
            &file,
            format!("shard {index}/{count} is not an index in 0..{count}"),
        ));
    }
    let name = "partial_order_fingerprints";
    let fingerprints = strings(field(&report, &file, name)?, &file, name)?;
    // Keys only under rc11 (and in reports that have the field).
    let graphs = match report.get("reads_from_graph_keys") {
        Some(keys) if !report["reads_from_graphs"].is_null() => {
            Some(strings(keys, &file, "reads_from_graph_keys")?)
        }
        _ => None,
    };
    let bugs = field(&report, &file, "bugs")?
        .as_array()
        .ok_or_else(|| invalid(&file, "\"bugs\" is not an array"))?
        .clone();
    for bug in &bugs {
        text(bug, &file, "kind")?;
        text(bug, &file, "signature")?;
    }
    Ok(ShardReport {
        index,
        count,
        split,
        ran,
        program: text(&report, &file, "program")?,
        program_hash: text(&report, &file, "program_hash")?,
        strategy: text(&report, &file, "strategy")?,
        search: field(&report, &file, "search")?.clone(),
        instrumented: field(&report, &file, "instrumented")?
            .as_bool()
            .ok_or_else(|| invalid(&file, "\"instrumented\" is not a boolean"))?,
        executions: number(&report, &file, "executions")?,
        sleep_blocked: number(&report, &file, "sleep_blocked")?,
        await_blocked: report
            .get("await_blocked")
            .map(|_| number(&report, &file, "await_blocked"))
            .transpose()?
            .unwrap_or(0),
        // Absent from reports written before the field existed.
        truncated_executions: report["truncated_executions"].as_u64().unwrap_or(0),
        recorded_bound: report["recorded_bound"].as_u64(),
        completion: text(&report, &file, "completion")?,
        stop_reason: text(&report, &file, "stop_reason")?,
        seconds: field(&report, &file, "seconds")?
            .as_f64()
            .ok_or_else(|| invalid(&file, "\"seconds\" is not a number"))?,
        fingerprints,
        graphs,
        bugs,
        file,
    })
}

/// A report's array of keys (fingerprints, graph keys) `name`.
fn strings(value: &Value, file: &str, name: &str) -> Result<Vec<String>, MergeError> {
    value
        .as_array()
        .ok_or_else(|| invalid(file, format!("\"{name}\" is not an array")))?
        .iter()
        .map(|f| {
            f.as_str()
                .map(str::to_string)
                .ok_or_else(|| invalid(file, format!("a key of \"{name}\" is not a string")))
        })
        .collect()
}

/// What two reports of one search must share, and the first that differs.
fn difference(a: &ShardReport, b: &ShardReport) -> Option<String> {
    if a.program_hash != b.program_hash {
        return Some(format!(
            "a different program build ({} is {}, {} is {})",
            b.program, b.program_hash, a.program, a.program_hash
        ));
    }
    if a.count != b.count {
        return Some(format!(
            "a different number of shards ({}/{} against {}/{})",
            b.index, b.count, a.index, a.count
        ));
    }
    if a.split != b.split {
        return Some(format!(
            "a different --shard-split ({} against {})",
            b.split, a.split
        ));
    }
    if a.strategy != b.strategy {
        return Some(format!(
            "a different strategy ({} against {})",
            b.strategy, a.strategy
        ));
    }
    if a.search != b.search {
        let (Some(x), Some(y)) = (a.search.as_object(), b.search.as_object()) else {
            return Some("different search options".into());
        };
        let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
        let differing: Vec<String> = keys
            .into_iter()
            .filter(|k| x.get(*k) != y.get(*k))
            .map(|k| {
                let show = |v: Option<&Value>| v.map_or("none".to_string(), Value::to_string);
                format!("{k} {} against {}", show(y.get(k)), show(x.get(k)))
            })
            .collect();
        return Some(format!(
            "different search options ({})",
            differing.join(", ")
        ));
    }
    None
}

/// Merges the shard reports in `paths`.
pub fn merge(paths: &[PathBuf]) -> Result<Merged, MergeError> {
    let reports = paths
        .iter()
        .map(|p| read(p))
        .collect::<Result<Vec<_>, _>>()?;
    let first = reports.first().ok_or(MergeError::Empty)?;
    let count = first.count;
    let mut by_index: Vec<Option<&ShardReport>> = vec![None; count as usize];
    for report in &reports {
        if let Some(what) = difference(first, report) {
            return Err(MergeError::Mismatch {
                path: report.file.clone(),
                first: first.file.clone(),
                what,
            });
        }
        let slot = &mut by_index[report.index as usize];
        if let Some(other) = slot {
            return Err(MergeError::Duplicate {
                path: report.file.clone(),
                other: other.file.clone(),
                index: report.index,
                count,
            });
        }
        *slot = Some(report);
    }
    let mut ordered = Vec::with_capacity(by_index.len());
    for (index, slot) in by_index.into_iter().enumerate() {
        ordered.push(slot.ok_or(MergeError::Missing {
            index: index as u32,
            count,
        })?);
    }
    let mut fingerprints = BTreeSet::new();
    let mut graphs: Option<BTreeSet<String>> = None;
    let mut bugs = Vec::new();
    let mut seen = HashSet::new();
    let mut worst = ordered[0];
    for report in &ordered {
        fingerprints.extend(report.fingerprints.iter().cloned());
        if let Some(keys) = &report.graphs {
            graphs
                .get_or_insert_with(BTreeSet::new)
                .extend(keys.iter().cloned());
        }
        for bug in &report.bugs {
            let key = (bug["kind"].to_string(), bug["signature"].to_string());
            if seen.insert(key) {
                let mut bug = bug.clone();
                if let Some(object) = bug.as_object_mut() {
                    object.insert("shard".into(), json!(report.index));
                }
                bugs.push(bug);
            }
        }
        if severity(&report.completion) > severity(&worst.completion) {
            worst = report;
        }
    }
    Ok(Merged {
        count,
        program: first.program.clone(),
        program_hash: first.program_hash.clone(),
        strategy: first.strategy.clone(),
        search: first.search.clone(),
        instrumented: first.instrumented,
        executions: ordered.iter().map(|r| r.executions).sum(),
        sleep_blocked: ordered.iter().map(|r| r.sleep_blocked).sum(),
        await_blocked: ordered.iter().map(|r| r.await_blocked).sum(),
        truncated_executions: ordered.iter().map(|r| r.truncated_executions).sum(),
        recorded_bound: ordered.iter().filter_map(|r| r.recorded_bound).max(),
        fingerprints,
        graphs,
        bugs,
        shards: ordered
            .iter()
            .map(|r| ShardSummary {
                index: r.index,
                file: r.file.clone(),
                executions: r.executions,
                partial_orders: r.fingerprints.len() as u64,
                completion: r.completion.clone(),
                seconds: r.seconds,
                ran: r.ran,
            })
            .collect(),
        completion: completion_word(&worst.completion),
        stop_reason: if worst.completion == "complete" {
            "complete".into()
        } else {
            format!("shard {}: {}", worst.index, worst.stop_reason)
        },
        seconds_max: ordered.iter().map(|r| r.seconds).fold(0.0, f64::max),
        seconds_sum: ordered.iter().map(|r| r.seconds).sum(),
    })
}

impl Merged {
    /// True if every shard explored its part completely.
    pub fn complete(&self) -> bool {
        self.completion == "complete"
    }

    /// The merged report, in the layout of `docs/report.schema.json`.
    pub fn to_json(&self) -> Value {
        let mut report = Map::new();
        let mut put = |k: &str, v: Value| {
            report.insert(k.to_string(), v);
        };
        put("schema_version", json!(crate::report::json::SCHEMA_VERSION));
        put("program", json!(self.program));
        put("strategy", json!(self.strategy));
        put("executions", json!(self.executions));
        put("complete", json!(self.complete()));
        put("stop_reason", json!(self.stop_reason));
        put("bug", self.bugs.first().cloned().unwrap_or(Value::Null));
        put("bugs", Value::Array(self.bugs.clone()));
        put("sleep_blocked", json!(self.sleep_blocked));
        put("await_blocked", json!(self.await_blocked));
        put("truncated_executions", json!(self.truncated_executions));
        put("recorded_bound", json!(self.recorded_bound));
        put("duplicate_partial_orders", Value::Null);
        put("partial_orders", json!(self.fingerprints.len()));
        put(
            "reads_from_graphs",
            json!(self.graphs.as_ref().map(BTreeSet::len)),
        );
        put(
            "reads_from_graph_keys",
            json!(self.graphs.iter().flatten().collect::<Vec<_>>()),
        );
        put(
            "partial_order_fingerprints",
            json!(self.fingerprints.iter().collect::<Vec<_>>()),
        );
        put("seconds", json!(self.seconds_max));
        put("instrumented", json!(self.instrumented));
        put("seed", Value::Null);
        put("coverage", json!(self.coverage_line()));
        put("found_by", Value::Null);
        put("shortened", Value::Null);
        put("completion", json!(self.completion));
        put("program_hash", json!(self.program_hash));
        put("search", self.search.clone());
        put("shard", Value::Null);
        put("shards", json!(self.shards));
        Value::Object(report)
    }

    /// What the shards together cover, as a one-line summary.
    pub fn coverage_line(&self) -> String {
        let graphs = self.graphs.as_ref().map_or(String::new(), |g| {
            format!(", {} reads-from graphs", g.len())
        });
        let line = format!(
            "{} executions, {} distinct partial orders{graphs} over {} shards ({})",
            self.executions,
            self.fingerprints.len(),
            self.count,
            match self.completion {
                "complete" => "every shard complete",
                "bug" => "stopped at a bug",
                _ => "incomplete",
            }
        );
        match (self.truncated_executions, self.recorded_bound) {
            (0, _) | (_, None) => line,
            (n, Some(bound)) => format!(
                "{line}; {n} longer than {bound} steps, explored only in their recorded steps"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(index: u32, count: u32, extra: &[(&str, Value)]) -> Value {
        let mut r = json!({
            "schema_version": crate::report::json::SCHEMA_VERSION,
            "program": "./p", "program_hash": "fnv1a-64:0000000000000001",
            "strategy": "dpor", "search": {"strategy": "dpor", "args": []},
            "instrumented": true, "executions": 3, "sleep_blocked": 1,
            "completion": "complete", "stop_reason": "complete", "seconds": 0.5,
            "partial_order_fingerprints": [format!("{index:016x}"), "ffffffffffffffff"],
            "bugs": [{"kind": "deadlock", "signature": "Deadlock x"}],
            "shard": {"index": index, "count": count, "split": 4},
        });
        for (k, v) in extra {
            r[*k] = v.clone();
        }
        r
    }

    fn files(name: &str, reports: &[Value]) -> Vec<PathBuf> {
        let dir = std::env::temp_dir().join(format!("reach-merge-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).ok();
        reports
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let path = dir.join(format!("{i}.json"));
                std::fs::write(&path, r.to_string()).ok();
                path
            })
            .collect()
    }

    #[test]
    fn unions_and_sums() {
        let merged = merge(&files("ok", &[report(1, 2, &[]), report(0, 2, &[])]));
        let merged = merged.map_err(|e| e.to_string());
        let Ok(merged) = merged else {
            panic!("{merged:?}", merged = merged.err())
        };
        assert_eq!(merged.executions, 6);
        assert_eq!(merged.fingerprints.len(), 3);
        assert_eq!(merged.bugs.len(), 1);
        assert_eq!(merged.completion, "complete");
        assert_eq!(merged.shards[0].index, 0);
    }

    #[test]
    fn unites_the_reads_from_graphs_of_rc11_shards() {
        let keys = |k: &[&str]| {
            [
                ("reads_from_graphs", json!(k.len())),
                ("reads_from_graph_keys", json!(k)),
            ]
        };
        let shards = [
            report(0, 2, &keys(&["00000000000000a1", "00000000000000b2"])),
            report(1, 2, &keys(&["00000000000000b2", "00000000000000c3"])),
        ];
        let merged = merge(&files("rf", &shards)).map_err(|e| e.to_string());
        let json = merged.as_ref().map(Merged::to_json).unwrap_or_default();
        assert_eq!(
            json["reads_from_graphs"],
            json!(3),
            "{merged:?}",
            merged = merged.err()
        );
        assert_eq!(
            json["reads_from_graph_keys"].as_array().map(Vec::len),
            Some(3)
        );
        let sc = merge(&files("sc", &[report(0, 1, &[])])).map(|m| m.to_json());
        assert_eq!(
            sc.ok().map(|j| j["reads_from_graphs"].clone()),
            Some(Value::Null)
        );
    }

    #[test]
    fn names_what_is_wrong() {
        let error = |reports: &[Value]| {
            merge(&files("bad", reports)).map_or_else(|e| e.to_string(), |_| String::new())
        };
        assert!(error(&[report(0, 3, &[]), report(2, 3, &[])]).contains("shard 1/3 is missing"));
        assert!(error(&[report(0, 2, &[]), report(0, 2, &[])]).contains("both shard 0/2"));
        let other = ("program_hash", json!("fnv1a-64:0000000000000002"));
        assert!(error(&[report(0, 2, &[]), report(1, 2, &[other])]).contains("program build"));
        assert!(error(&[report(0, 2, &[]), report(1, 3, &[])]).contains("number of shards"));
        let options = ("search", json!({"strategy": "dpor", "args": ["7"]}));
        assert!(error(&[report(0, 2, &[]), report(1, 2, &[options])]).contains("args"));
        assert!(error(&[report(0, 1, &[("shard", Value::Null)])]).contains("without --shard"));
        assert!(error(&[json!([1, 2])]).contains("not a JSON object"));
        assert!(error(&[report(0, 1, &[("executions", json!(-1))])]).contains("executions"));
        assert!(error(&[report(0, 1, &[("bugs", json!([{"kind": 1}]))])]).contains("kind"));
    }

    #[test]
    fn an_interrupted_shard_makes_the_whole_incomplete() {
        let stopped = [
            ("completion", json!("interrupted")),
            ("stop_reason", json!("interrupted")),
        ];
        let merged = merge(&files("int", &[report(0, 2, &[]), report(1, 2, &stopped)]));
        assert_eq!(merged.map(|m| m.completion).ok(), Some("interrupted"));
    }
}
