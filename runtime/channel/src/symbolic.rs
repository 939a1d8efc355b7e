//! The symbolic region of the channel: program inputs, the expression DAG
//! the runtime builds over them, and the path constraints of an execution
//! (concolic testing, see the driver's `concolic` module).
//!
//! The region follows the event array ([`crate::Layout::sym_offset`]):
//!
//! | part     | type                               | written by |
//! |----------|------------------------------------|------------|
//! | header   | [`SymHeader`]                      | request: driver, response: runtime |
//! | nodes    | `[SymNode; SYM_NODE_CAPACITY]`     | runtime |
//! | branches | `[BranchRecord; SYM_BRANCH_CAPACITY]` | runtime |
//!
//! Expressions are bit-vectors. Node ids are 1-based (node `n` is entry
//! `n - 1`); id 0 means "concrete" everywhere. A node refers only to nodes
//! of smaller ids, so the DAG is acyclic by construction (the driver checks
//! it: the region is untrusted). Comparisons produce 1-bit vectors.

/// Most inputs one execution may create.
pub const SYM_MAX_INPUTS: usize = 64;
/// Bytes of an input's name (longer names are cut).
pub const SYM_NAME_BYTES: usize = 48;
/// Most bytes of one input (`reach_input_bytes`, an `argv` string, stdin).
pub const SYM_MAX_INPUT_BYTES: usize = 64;
/// Capacity of the expression node array.
pub const SYM_NODE_CAPACITY: usize = 1 << 18;
/// Capacity of the path-constraint array.
pub const SYM_BRANCH_CAPACITY: usize = 1 << 16;

/// Request flag: make the bytes of `argv[1..]` symbolic.
pub const SYM_REQ_ARGS: u32 = 1;
/// Request flag: make the first [`SymHeader::stdin_bytes`] bytes of
/// standard input symbolic.
pub const SYM_REQ_STDIN: u32 = 2;
/// Request flag: trace where branch conditions come from (`--strategy
/// branches`): the value of every instrumented shared load becomes a
/// [`SymOp::SharedRead`] node naming its trace event, and a store of a
/// value computed from such nodes records a [`BranchKind::Definition`].
pub const SYM_REQ_SHARED: u32 = 4;

/// Response bit of [`SymHeader::overflow`]: the node array filled up; later
/// operations were computed concretely.
pub const SYM_OVERFLOW_NODES: u32 = 1;
/// Response bit: the path-constraint array filled up.
pub const SYM_OVERFLOW_BRANCHES: u32 = 2;
/// Response bit: more inputs than [`SYM_MAX_INPUTS`] were asked for.
pub const SYM_OVERFLOW_INPUTS: u32 = 4;
/// Response bit: a pointer was formed from a symbolic value and its value
/// was fixed (a [`BranchKind::Pinned`] equality was recorded).
pub const SYM_CONCRETISED: u32 = 8;

/// Kind of an input.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// `reach_input_int(name, lo, hi)`: a 32-bit signed integer in `lo..=hi`.
    Int = 0,
    /// `reach_input_bytes(buf, len, name)`, an `argv` string, stdin bytes.
    Bytes = 1,
}

impl InputKind {
    /// Decodes a raw value (untrusted).
    pub fn from_u32(raw: u32) -> Option<InputKind> {
        match raw {
            0 => Some(InputKind::Int),
            1 => Some(InputKind::Bytes),
            _ => None,
        }
    }
}

/// One input: a value the driver chose (request) or one the execution
/// created (response). Inputs are identified by name and occurrence (the
/// n-th creation of an input of that name in the execution, from 0).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct InputSlot {
    /// Name bytes (UTF-8, `name_len` of them).
    pub name: [u8; SYM_NAME_BYTES],
    /// Bytes of `name` in use.
    pub name_len: u32,
    /// Bytes of the value (4 for an integer).
    pub len: u32,
    /// An [`InputKind`] value.
    pub kind: u32,
    /// Occurrence of this name in the execution.
    pub occurrence: u32,
    /// Lower bound (integers).
    pub lo: i64,
    /// Upper bound (integers).
    pub hi: i64,
    /// Response: the input's expression node (0 if it could not get one).
    pub node: u32,
    /// Response: thread that created it.
    pub thread: u32,
    /// The value, little-endian for an integer.
    pub bytes: [u8; SYM_MAX_INPUT_BYTES],
}

impl InputSlot {
    /// An empty slot.
    pub const EMPTY: InputSlot = InputSlot {
        name: [0; SYM_NAME_BYTES],
        name_len: 0,
        len: 0,
        kind: 0,
        occurrence: 0,
        lo: 0,
        hi: 0,
        node: 0,
        thread: 0,
        bytes: [0; SYM_MAX_INPUT_BYTES],
    };

    /// The name as stored (cut at [`SYM_NAME_BYTES`]).
    pub fn name_bytes(&self) -> &[u8] {
        &self.name[..(self.name_len as usize).min(SYM_NAME_BYTES)]
    }

    /// Stores `name`, cut at [`SYM_NAME_BYTES`] bytes.
    pub fn set_name(&mut self, name: &[u8]) {
        let n = name.len().min(SYM_NAME_BYTES);
        self.name[..n].copy_from_slice(&name[..n]);
        self.name_len = n as u32;
    }
}

/// Header of the symbolic region.
#[repr(C)]
pub struct SymHeader {
    // ---- request (driver → runtime) ----
    /// `SYM_REQ_*` bits.
    pub flags: u32,
    /// Bytes of stdin made symbolic with [`SYM_REQ_STDIN`].
    pub stdin_bytes: u32,
    /// Valid entries of `given`.
    pub given_count: u32,
    /// Reserved.
    pub _reserved: u32,
    /// The values to use for inputs, by name and occurrence; an input not
    /// listed gets its default (0 clamped to its range, zero bytes, the
    /// program's own argument or stdin bytes).
    pub given: [InputSlot; SYM_MAX_INPUTS],

    // ---- response (runtime → driver) ----
    /// Inputs created (valid entries of `inputs`).
    pub input_count: u32,
    /// Nodes written.
    pub node_count: u32,
    /// Path constraints written.
    pub branch_count: u32,
    /// `SYM_OVERFLOW_*` / [`SYM_CONCRETISED`] bits.
    pub overflow: u32,
    /// The inputs the execution created, in creation order.
    pub inputs: [InputSlot; SYM_MAX_INPUTS],
}

/// Operation of an expression node. The values are part of the channel
/// layout.
#[repr(u16)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SymOp {
    /// Input `imm` (index into [`SymHeader::inputs`]), `width` = 8 × its length.
    Input = 1,
    /// Constant `imm` (at most 64 bits).
    Const = 2,
    /// `a + b` (wrapping).
    Add = 3,
    /// `a - b`.
    Sub = 4,
    /// `a * b`.
    Mul = 5,
    /// Unsigned division (by zero: all ones, as in SMT-LIB).
    UDiv = 6,
    /// Signed division.
    SDiv = 7,
    /// Unsigned remainder.
    URem = 8,
    /// Signed remainder.
    SRem = 9,
    /// Shift left.
    Shl = 10,
    /// Logical shift right.
    LShr = 11,
    /// Arithmetic shift right.
    AShr = 12,
    /// Bitwise and.
    And = 13,
    /// Bitwise or.
    Or = 14,
    /// Bitwise xor.
    Xor = 15,
    /// `a == b` (1 bit).
    Eq = 16,
    /// `a != b`.
    Ne = 17,
    /// Unsigned `>`.
    Ugt = 18,
    /// Unsigned `>=`.
    Uge = 19,
    /// Unsigned `<`.
    Ult = 20,
    /// Unsigned `<=`.
    Ule = 21,
    /// Signed `>`.
    Sgt = 22,
    /// Signed `>=`.
    Sge = 23,
    /// Signed `<`.
    Slt = 24,
    /// Signed `<=`.
    Sle = 25,
    /// Zero-extend `a` to `width`.
    ZExt = 26,
    /// Sign-extend `a` to `width`.
    SExt = 27,
    /// Bits `imm .. imm + width` of `a` (truncation is `imm = 0`).
    Extract = 28,
    /// `a` (high bits) concatenated with `b` (low bits).
    Concat = 29,
    /// `a != 0 ? b : c` (`a` 1 bit wide).
    Ite = 30,
    /// The value a shared load read ([`SYM_REQ_SHARED`]): `imm` = index of
    /// the load's event in the trace, `width` = 8 × its size. Not an input:
    /// only the branch-directed search reads it, the solver never does.
    SharedRead = 31,
}

impl SymOp {
    /// Every operation, for decoding.
    pub const ALL: &'static [SymOp] = &[
        SymOp::Input,
        SymOp::Const,
        SymOp::Add,
        SymOp::Sub,
        SymOp::Mul,
        SymOp::UDiv,
        SymOp::SDiv,
        SymOp::URem,
        SymOp::SRem,
        SymOp::Shl,
        SymOp::LShr,
        SymOp::AShr,
        SymOp::And,
        SymOp::Or,
        SymOp::Xor,
        SymOp::Eq,
        SymOp::Ne,
        SymOp::Ugt,
        SymOp::Uge,
        SymOp::Ult,
        SymOp::Ule,
        SymOp::Sgt,
        SymOp::Sge,
        SymOp::Slt,
        SymOp::Sle,
        SymOp::ZExt,
        SymOp::SExt,
        SymOp::Extract,
        SymOp::Concat,
        SymOp::Ite,
        SymOp::SharedRead,
    ];

    /// Decodes a raw value (untrusted).
    pub fn from_u16(raw: u16) -> Option<SymOp> {
        SymOp::ALL.iter().copied().find(|op| *op as u16 == raw)
    }

    /// True for the two-operand arithmetic and bitwise operations.
    pub fn is_binary(self) -> bool {
        (SymOp::Add as u16..=SymOp::Xor as u16).contains(&(self as u16))
    }

    /// True for the comparisons (1-bit results).
    pub fn is_comparison(self) -> bool {
        (SymOp::Eq as u16..=SymOp::Sle as u16).contains(&(self as u16))
    }
}

/// One expression node.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SymNode {
    /// A [`SymOp`] value.
    pub op: u16,
    /// Width of the result in bits (1..=512).
    pub width: u16,
    /// First operand (node id).
    pub a: u32,
    /// Second operand.
    pub b: u32,
    /// Third operand ([`SymOp::Ite`]).
    pub c: u32,
    /// Constant value, input index or extraction offset.
    pub imm: u64,
}

/// What a path constraint is.
#[repr(u16)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BranchKind {
    /// A conditional branch (or one case test of a `switch`): its other
    /// outcome is a target for the next executions.
    Branch = 0,
    /// A constraint that only narrows the inputs: the range of
    /// `reach_input_int`, a concretised pointer offset. Never negated.
    Pinned = 1,
    /// `reach_assume(cond)`: when it failed (`taken = 0`), inputs that
    /// satisfy it are a target; when it held, it only narrows the inputs.
    Assume = 2,
    /// With [`SYM_REQ_SHARED`]: the value `expr` was stored by `thread` at
    /// address `site` (the field holds the address here) in the traced
    /// store that is event `step`. Never negated.
    Definition = 3,
}

/// One path constraint: at `site`, in `thread`, expression `expr` was
/// non-zero (`taken = 1`) or zero (`taken = 0`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BranchRecord {
    /// Thread that evaluated it.
    pub thread: u32,
    /// A [`BranchKind`] value.
    pub kind: u16,
    /// 1 if the condition held.
    pub taken: u16,
    /// Site id of the branch.
    pub site: u64,
    /// Condition node.
    pub expr: u32,
    /// Reserved.
    pub _reserved: u32,
    /// Number of trace events recorded before it: the branch lies between
    /// event `step - 1` (of `thread`, or earlier) and the next event.
    pub step: u64,
}

/// Bytes of the symbolic region.
pub const SYM_REGION_BYTES: usize =
    sym_branches_offset() + SYM_BRANCH_CAPACITY * core::mem::size_of::<BranchRecord>();

/// Offset of the node array inside the region.
pub const fn sym_nodes_offset() -> usize {
    (core::mem::size_of::<SymHeader>() + 63) & !63
}

/// Offset of the path-constraint array inside the region.
pub const fn sym_branches_offset() -> usize {
    sym_nodes_offset() + SYM_NODE_CAPACITY * core::mem::size_of::<SymNode>()
}

const _: () = assert!(core::mem::size_of::<SymNode>() == 24);
const _: () = assert!(core::mem::size_of::<BranchRecord>() == 32);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn op_codes_round_trip() {
        for op in SymOp::ALL {
            assert_eq!(SymOp::from_u16(*op as u16), Some(*op));
        }
        assert_eq!(SymOp::from_u16(0), None);
        assert!(SymOp::Xor.is_binary() && !SymOp::Eq.is_binary());
        assert!(SymOp::Sle.is_comparison() && !SymOp::ZExt.is_comparison());
    }
}
