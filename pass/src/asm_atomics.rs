//! x86 atomic instructions written as inline assembly: what one does, so
//! that the runtime can tell an exchange that wrote the value already
//! there, or a failed compare-and-exchange, from a write (a spin loop
//! retrying it then awaits a change, as one retrying the C11 operation
//! does). Libraries of lock-free code (Concurrency Kit's `ck_pr`, hand-
//! written locks) spell their atomics this way:
//!
//! ```text
//! "xchgl $0, $1"             "=*m,=q,*m,1"        exchange: the register's input value
//! "lock cmpxchgl $3, $0"     "=*m,={@ccz},={ax},q,*m,2"   compare with the input in ax
//! "lock xaddl $1, $0"        "=*m,=q,*m,1"        add the register's input value
//! "lock addl $1, $0"         "=*m,Zq,*m"          add (sub, and, or, xor alike)
//! "lock incl $0"             "=*m,*m"             add 1 (dec: subtract 1)
//! ```
//!
//! The template must be one such instruction (AT&T syntax, an optional
//! `lock` prefix, a size suffix `b`/`w`/`l`/`q` or none) on one memory
//! operand, followed by nothing but `set<cc>` of a flag into an output;
//! anything else stays a read-modify-write of unknown operation (always a
//! write).

use crate::llvm::{self, Value};
use reach_channel::hooks::RmwOp;

/// What a recognised atomic instruction does to its memory operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AsmAtomic {
    /// A read-modify-write `op` with a value operand.
    Rmw { op: RmwOp, operand: Operand },
    /// A compare-and-exchange with this expected value.
    CmpXchg { expected: Value },
}

/// The value operand of an [`AsmAtomic::Rmw`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Operand {
    /// A value of the program (an argument of the asm call).
    Value(Value),
    /// A constant (`inc`, `dec`, an immediate).
    Constant(u64),
}

/// A recognised atomic instruction of an inline-asm call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Recognised {
    /// The address of its memory operand.
    pub ptr: Value,
    /// Bytes accessed, from the size suffix (`None`: no suffix).
    pub size: Option<u64>,
    /// What it does.
    pub atomic: AsmAtomic,
    /// The instruction's mnemonic without its size suffix (`xchg`).
    pub mnemonic: &'static str,
}

/// One operand of an asm call as its constraint string gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Constraint {
    output: bool,
    indirect: bool,
    /// The constraint code without `=`, `*`, `&` (`m`, `q`, `{ax}`, `1`).
    code: String,
    /// The call argument that carries it (indirect outputs and inputs).
    arg: Option<u32>,
}

/// The operands of a constraint string, in operand-number order.
fn operands(constraints: &str) -> Vec<Constraint> {
    let mut out = Vec::new();
    let mut next_arg = 0;
    for entry in constraints.split(',').filter(|e| !e.is_empty()) {
        if entry.starts_with('~') || entry.starts_with('!') {
            continue;
        }
        let (output, rest) = match entry.strip_prefix('=') {
            Some(rest) => (true, rest),
            None => (false, entry),
        };
        let prefix = rest
            .chars()
            .take_while(|c| matches!(c, '*' | '&' | '%' | '#'))
            .count();
        let indirect = rest[..prefix].contains('*');
        let takes_arg = !output || indirect;
        out.push(Constraint {
            output,
            indirect,
            code: rest[prefix..].to_string(),
            arg: takes_arg.then(|| {
                next_arg += 1;
                next_arg - 1
            }),
        });
    }
    out
}

/// An operand of the template: `$N`/`${N:x}` or an immediate `$$N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TemplateOperand {
    Number(usize),
    Immediate(u64),
}

fn template_operand(text: &str) -> Option<TemplateOperand> {
    let text = text.trim();
    if let Some(imm) = text.strip_prefix("$$") {
        return imm.parse().ok().map(TemplateOperand::Immediate);
    }
    let n = text.strip_prefix('$')?;
    let n = n
        .strip_prefix('{')
        .and_then(|n| n.strip_suffix('}'))
        .map_or(n, |n| n.split(':').next().unwrap_or(n));
    n.parse().ok().map(TemplateOperand::Number)
}

/// The one instruction of `template` with its `lock` prefix dropped and
/// the flag-setting instructions after it checked: mnemonic and operands.
fn instruction(template: &str) -> Option<(&str, Vec<&str>)> {
    let mut parts = template
        .split([';', '\n'])
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .peekable();
    if parts.peek() == Some(&"lock") {
        parts.next();
    }
    let main = parts.next()?;
    if !parts.all(|p| p.starts_with("set")) {
        return None;
    }
    let main = main.strip_prefix("lock ").map_or(main, str::trim_start);
    let (mnemonic, rest) = main.split_once(char::is_whitespace).unwrap_or((main, ""));
    let operands = rest
        .split(',')
        .map(str::trim)
        .filter(|o| !o.is_empty())
        .collect();
    Some((mnemonic, operands))
}

/// The base of `mnemonic` among `bases` and its size suffix's bytes.
fn split_suffix<'a>(mnemonic: &str, bases: &[&'a str]) -> Option<(&'a str, Option<u64>)> {
    bases.iter().find_map(|&base| {
        let suffix = mnemonic.strip_prefix(base)?;
        let size = match suffix {
            "" => None,
            "b" => Some(1),
            "w" => Some(2),
            "l" => Some(4),
            "q" => Some(8),
            _ => return None,
        };
        Some((base, size))
    })
}

/// Recognises the atomic instruction of the inline-asm `call` to `asm`, if
/// its template is one (see the module documentation).
pub(crate) fn recognise(call: Value, asm: Value) -> Option<Recognised> {
    let template = llvm::inline_asm_text(asm);
    let ops = operands(&llvm::inline_asm_constraints(asm));
    if ops.iter().filter_map(|o| o.arg).count() != llvm::num_args(call) as usize {
        return None;
    }
    let arg = |c: &Constraint| c.arg.map(|i| llvm::operand(call, i));
    // The value a register operand holds when the asm starts: its own
    // argument, or for an output the input tied to it.
    let input_value = |n: usize| -> Option<Value> {
        let c = ops.get(n)?;
        if c.indirect {
            return None;
        }
        if !c.output {
            return arg(c);
        }
        let tied = n.to_string();
        ops.iter()
            .find(|i| !i.output && i.code == tied)
            .and_then(arg)
    };
    let memory = |n: usize| -> Option<Value> {
        let c = ops.get(n)?;
        if c.indirect {
            arg(c)
        } else {
            None
        }
    };
    let (mnemonic, text_ops) = instruction(&template)?;
    let operands: Vec<TemplateOperand> = text_ops
        .iter()
        .map(|o| template_operand(o))
        .collect::<Option<_>>()?;
    const BASES: [&str; 10] = [
        "cmpxchg", "xchg", "xadd", "add", "sub", "and", "or", "xor", "inc", "dec",
    ];
    let (base, size) = split_suffix(mnemonic, &BASES)?;
    let number = |o: &TemplateOperand| match o {
        TemplateOperand::Number(n) => Some(*n),
        TemplateOperand::Immediate(_) => None,
    };
    let source = |o: &TemplateOperand| match o {
        TemplateOperand::Number(n) => input_value(*n).map(Operand::Value),
        TemplateOperand::Immediate(v) => Some(Operand::Constant(*v)),
    };
    let (ptr, atomic) = match (base, operands.as_slice()) {
        ("inc" | "dec", [dst]) => {
            let op = if base == "inc" {
                RmwOp::Add
            } else {
                RmwOp::Sub
            };
            let atomic = AsmAtomic::Rmw {
                op,
                operand: Operand::Constant(1),
            };
            (memory(number(dst)?)?, atomic)
        }
        ("xchg", [a, b]) => {
            let (a, b) = (number(a)?, number(b)?);
            let (mem, reg) = match (memory(a), memory(b)) {
                (Some(m), None) => (m, b),
                (None, Some(m)) => (m, a),
                _ => return None,
            };
            let operand = Operand::Value(input_value(reg)?);
            let atomic = AsmAtomic::Rmw {
                op: RmwOp::Xchg,
                operand,
            };
            (mem, atomic)
        }
        ("cmpxchg", [_, dst]) => {
            let expected = ops
                .iter()
                .position(|c| !c.indirect && matches!(c.code.as_str(), "{ax}" | "a"))
                .and_then(input_value)?;
            (memory(number(dst)?)?, AsmAtomic::CmpXchg { expected })
        }
        ("xadd" | "add" | "sub" | "and" | "or" | "xor", [src, dst]) => {
            let op = match base {
                "xadd" | "add" => RmwOp::Add,
                "sub" => RmwOp::Sub,
                "and" => RmwOp::And,
                "or" => RmwOp::Or,
                _ => RmwOp::Xor,
            };
            let operand = source(src)?;
            (memory(number(dst)?)?, AsmAtomic::Rmw { op, operand })
        }
        _ => return None,
    };
    Some(Recognised {
        ptr,
        size,
        atomic,
        mnemonic: base,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constraints_number_operands_and_arguments() {
        let ops = operands("=*m,={@ccz},={ax},q,*m,2,~{memory},~{cc}");
        let codes: Vec<_> = ops.iter().map(|o| o.code.as_str()).collect();
        assert_eq!(codes, ["m", "{@ccz}", "{ax}", "q", "m", "2"]);
        let args: Vec<_> = ops.iter().map(|o| o.arg).collect();
        assert_eq!(args, [Some(0), None, None, Some(1), Some(2), Some(3)]);
        assert!(ops[0].output && ops[0].indirect);
        assert!(!ops[4].output && ops[4].indirect);
    }

    #[test]
    fn template_operands() {
        assert_eq!(template_operand("$3"), Some(TemplateOperand::Number(3)));
        assert_eq!(template_operand("${1:k}"), Some(TemplateOperand::Number(1)));
        assert_eq!(template_operand("$$1"), Some(TemplateOperand::Immediate(1)));
        assert_eq!(template_operand("%eax"), None);
    }

    #[test]
    fn one_instruction_with_lock_and_flag_setting() {
        assert_eq!(
            instruction("lock cmpxchgl $3, $0; setz $1"),
            Some(("cmpxchgl", vec!["$3", "$0"]))
        );
        assert_eq!(
            instruction("lock; xaddl $1, $0"),
            Some(("xaddl", vec!["$1", "$0"]))
        );
        assert_eq!(instruction("lock incl $0"), Some(("incl", vec!["$0"])));
        assert_eq!(instruction("movl $1, $0; mfence"), None);
    }

    #[test]
    fn size_suffixes() {
        let bases = ["cmpxchg", "xchg", "add"];
        assert_eq!(split_suffix("cmpxchgq", &bases), Some(("cmpxchg", Some(8))));
        assert_eq!(split_suffix("xchgl", &bases), Some(("xchg", Some(4))));
        assert_eq!(split_suffix("xchg", &bases), Some(("xchg", None)));
        assert_eq!(split_suffix("addpd", &bases), None);
    }
}
