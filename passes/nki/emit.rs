//! Python text for NKI kernels: indentation, affine index expressions, dtype names.

/// An indented Python source being built.
#[derive(Default)]
pub struct Py {
    pub text: String,
    pub indent: usize,
}

impl Py {
    pub fn line(&mut self, s: &str) {
        if s.is_empty() {
            self.text.push('\n');
            return;
        }
        for _ in 0..self.indent {
            self.text.push_str("    ");
        }
        self.text.push_str(s);
        self.text.push('\n');
    }
}

/// The file header: the NKI imports the generated kernels use.
pub fn header() -> String {
    "# NKI kernel(s) emitted by axe-translate --axe-to-nki (Axe paper §3.4, Appendix H).\n\
     import nki\n\
     import nki.language as nl\n\
     import nki.isa as nisa\n\n"
        .to_string()
}

/// The `nki.language` dtype for an element type.
pub fn dtype(elem: super::Elem) -> &'static str {
    match elem {
        super::Elem::F16 => "nl.float16",
        super::Elem::BF16 => "nl.bfloat16",
        super::Elem::F32 => "nl.float32",
    }
}

/// An affine expression `c + Σ var·k`, printed without redundant terms.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Affine {
    pub constant: i64,
    pub terms: Vec<(String, i64)>,
}

impl Affine {
    pub fn constant(c: i64) -> Self {
        Affine {
            constant: c,
            terms: Vec::new(),
        }
    }
    pub fn add_term(&mut self, var: &str, k: i64) {
        if k != 0 {
            self.terms.push((var.to_string(), k));
        }
    }
    pub fn print(&self) -> String {
        let mut parts: Vec<String> = self
            .terms
            .iter()
            .map(|(v, k)| if *k == 1 { v.clone() } else { format!("{k} * {v}") })
            .collect();
        if self.constant != 0 || parts.is_empty() {
            parts.push(self.constant.to_string());
        }
        parts.join(" + ")
    }
    /// `start:start + n`
    pub fn range(&self, n: i64) -> String {
        let mut end = self.clone();
        end.constant += n;
        format!("{}:{}", self.print(), end.print())
    }
}
