//! Colour for the terminal report: only when standard output is a
//! terminal and `NO_COLOR` is unset (<https://no-color.org>).

use std::io::IsTerminal;

/// Whether to colour, and the escape sequences.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Style {
    /// Colour on.
    pub colour: bool,
}

impl Style {
    /// Colour when standard output is a terminal and `NO_COLOR` is unset
    /// or empty.
    pub fn for_stdout() -> Style {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Style {
            colour: !no_color && std::io::stdout().is_terminal(),
        }
    }

    /// No colour.
    pub fn plain() -> Style {
        Style { colour: false }
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.colour && !text.is_empty() {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    /// A step the bug names.
    pub fn bug(&self, text: &str) -> String {
        self.paint("1;31", text)
    }

    /// A heading.
    pub fn heading(&self, text: &str) -> String {
        self.paint("1", text)
    }

    /// A context switch marker.
    pub fn switch(&self, text: &str) -> String {
        self.paint("33", text)
    }

    /// Secondary text (folded runs, source text).
    pub fn dim(&self, text: &str) -> String {
        self.paint("2", text)
    }
}
