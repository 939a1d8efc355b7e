//! What an execution recorded in the channel's symbolic region: the
//! inputs it created, the expressions over them and its path constraints.

use super::{ExecError, InputValue};
use reach_channel::symbolic::{BranchRecord, InputKind, SymNode, SYM_REQ_ARGS, SYM_REQ_STDIN};
use reach_channel::ChannelView;

/// One input an execution created.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    /// Name (lossy UTF-8).
    pub name: String,
    /// Occurrence of the name in the execution.
    pub occurrence: u32,
    /// Integer or bytes.
    pub kind: InputKind,
    /// The value used.
    pub bytes: Vec<u8>,
    /// Range of an integer input.
    pub lo: i64,
    /// Range of an integer input.
    pub hi: i64,
    /// Thread that created it.
    pub thread: u32,
}

impl Input {
    /// The value as the driver passes it back.
    pub fn value(&self) -> InputValue {
        InputValue {
            name: self.name.clone(),
            occurrence: self.occurrence,
            bytes: self.bytes.clone(),
        }
    }

    /// The value for people: a decimal integer, or the bytes as a string
    /// with escapes.
    pub fn display(&self) -> String {
        display_value(self.kind, &self.bytes)
    }
}

/// Formats an input value: an integer in decimal, bytes as an escaped string.
pub fn display_value(kind: InputKind, bytes: &[u8]) -> String {
    match kind {
        InputKind::Int if bytes.len() == 4 => {
            i32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]).to_string()
        }
        _ => format!("\"{}\"", bytes.escape_ascii()),
    }
}

/// What one execution recorded in the symbolic region.
#[derive(Clone, Debug, Default)]
pub struct SymTrace {
    /// Inputs in creation order (index = the `imm` of an input node).
    pub inputs: Vec<Input>,
    /// Expression nodes (node id `n` is entry `n - 1`), unvalidated.
    pub nodes: Vec<SymNode>,
    /// Path constraints in execution order.
    pub branches: Vec<BranchRecord>,
    /// `SYM_OVERFLOW_*` bits.
    pub overflow: u32,
    /// The execution ran with `--symbolic-args`.
    pub args: bool,
    /// Bytes of stdin the execution made symbolic (`--symbolic-stdin`).
    pub stdin_bytes: u32,
}

impl SymTrace {
    /// Reads the symbolic region (`None` if the execution recorded nothing
    /// there: no input, and no shared-load expression with `--strategy
    /// branches`).
    pub fn read(view: &ChannelView<'_>) -> Result<Option<SymTrace>, ExecError> {
        let counts = view.sym_counts()?;
        if counts.inputs == 0 && counts.nodes == 0 && counts.branches == 0 {
            return Ok(None);
        }
        let mut inputs = Vec::with_capacity(counts.inputs);
        for i in 0..counts.inputs {
            let slot = view.sym_input(i)?;
            let kind = InputKind::from_u32(slot.kind)
                .ok_or_else(|| ExecError::CorruptChannel(format!("input {i} has a bad kind")))?;
            let len = (slot.len as usize).min(slot.bytes.len());
            inputs.push(Input {
                name: String::from_utf8_lossy(slot.name_bytes()).into_owned(),
                occurrence: slot.occurrence,
                kind,
                bytes: slot.bytes[..len].to_vec(),
                lo: slot.lo,
                hi: slot.hi,
                thread: slot.thread,
            });
        }
        let mut nodes = Vec::with_capacity(counts.nodes);
        for id in 1..=counts.nodes as u32 {
            nodes.push(view.sym_node(id)?);
        }
        let mut branches = Vec::with_capacity(counts.branches);
        for i in 0..counts.branches {
            branches.push(view.sym_branch(i)?);
        }
        Ok(Some(SymTrace {
            inputs,
            nodes,
            branches,
            overflow: counts.overflow,
            args: counts.flags & SYM_REQ_ARGS != 0,
            stdin_bytes: if counts.flags & SYM_REQ_STDIN != 0 {
                counts.stdin_bytes
            } else {
                0
            },
        }))
    }

    /// The inputs for people: `mode = 3, name#1 = "ab\x00"` (`#k` for the
    /// k-th occurrence of a name after the first).
    pub fn inputs_text(&self) -> String {
        let inputs: Vec<String> = self
            .inputs
            .iter()
            .map(|i| {
                let occurrence = if i.occurrence > 0 {
                    format!("#{}", i.occurrence)
                } else {
                    String::new()
                };
                format!("{}{occurrence} = {}", i.name, i.display())
            })
            .collect();
        inputs.join(", ")
    }

    /// The input values as the driver passes them to an execution.
    pub fn values(&self) -> Vec<InputValue> {
        self.inputs.iter().map(Input::value).collect()
    }
}
