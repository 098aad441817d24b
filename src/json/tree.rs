//! The one spanned JSON tree that JSON files and `json!` macro bodies both become.
//!
//! Every node carries its byte range in the file it came from (for a `json!` body, the Rust file),
//! so rules report exact spans whichever front end built the tree.

use std::ops::Range;

#[derive(Debug, Clone)]
pub struct JsonNode {
    pub range: Range<usize>,
    pub kind: JsonKind,
}

#[derive(Debug, Clone)]
pub enum JsonKind {
    Object(Vec<JsonMember>),
    Array(Vec<JsonNode>),
    String(String),
    /// The number as written (`-1`, `2.5e3`), so huge numbers survive.
    Number(String),
    Bool(bool),
    Null,
    /// A Rust expression interpolated into a `json!` body (`"id": next_id()`): opaque to JSON rules,
    /// but its tokens keep their spans so Rust analysis can look inside.
    Expr(proc_macro2::TokenStream),
}

#[derive(Debug, Clone)]
pub struct JsonMember {
    /// The key's text (unquoted). For a `json!` key that is a Rust expression, its source text.
    pub key: String,
    /// The key as written, quotes included.
    pub key_range: Range<usize>,
    /// From the start of the key to the end of the value.
    pub range: Range<usize>,
    pub value: JsonNode,
}

impl JsonNode {
    pub fn members(&self) -> &[JsonMember] {
        match &self.kind {
            JsonKind::Object(m) => m,
            _ => &[],
        }
    }

    pub fn elements(&self) -> &[JsonNode] {
        match &self.kind {
            JsonKind::Array(e) => e,
            _ => &[],
        }
    }

    pub fn is_object(&self) -> bool {
        matches!(self.kind, JsonKind::Object(_))
    }

    /// The first member with this key.
    pub fn member(&self, key: &str) -> Option<&JsonMember> {
        self.members().iter().find(|m| m.key == key)
    }

    /// The value of the first member with this key.
    pub fn get(&self, key: &str) -> Option<&JsonNode> {
        self.member(key).map(|m| &m.value)
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            JsonKind::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self.kind {
            JsonKind::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// A scalar's value as a comparable key (`"7"` and `7` differ): used for JSON-RPC ids.
    /// `None` for objects, arrays and Rust expressions.
    pub fn scalar_key(&self) -> Option<String> {
        match &self.kind {
            JsonKind::String(s) => Some(format!("s:{s}")),
            JsonKind::Number(n) => Some(format!("n:{n}")),
            JsonKind::Bool(b) => Some(format!("b:{b}")),
            JsonKind::Null => Some("null".into()),
            _ => None,
        }
    }
}

/// One step on the way from the root to a node: the key of an object member, or an array index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// Visits every node of a tree in document order with the steps that lead to it, without
/// recursion (input nesting is bounded before parsing, but walking stays iterative anyway).
pub fn walk<'a>(root: &'a JsonNode, mut visit: impl FnMut(&'a JsonNode, &[Step<'a>])) {
    // Each frame: a node and the path length at which it sits.
    let mut stack: Vec<(&'a JsonNode, usize, Option<Step<'a>>)> = vec![(root, 0, None)];
    let mut path: Vec<Step<'a>> = Vec::new();
    while let Some((node, depth, step)) = stack.pop() {
        path.truncate(depth);
        if let Some(step) = step {
            path.push(step);
        }
        visit(node, &path);
        let here = path.len();
        match &node.kind {
            JsonKind::Object(members) => {
                for m in members.iter().rev() {
                    stack.push((&m.value, here, Some(Step::Key(&m.key))));
                }
            }
            JsonKind::Array(items) => {
                for (i, item) in items.iter().enumerate().rev() {
                    stack.push((item, here, Some(Step::Index(i))));
                }
            }
            _ => {}
        }
    }
}
