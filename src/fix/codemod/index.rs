//! What the codemod knows about a crate's Rust files: every function (free, inherent, trait impl)
//! and every struct, with the file they are in.

use std::ops::Range;

use quote::ToTokens;
use syn::{Attribute, Block, Item, ItemImpl, ItemStruct, Signature};

use super::text::Src;
use crate::rust::syntax::{has_attr, tokens_mention};

/// One Rust file of the crate, parsed.
pub struct ParsedFile {
    pub ast: syn::File,
    pub base: usize,
}

/// A function of the crate.
pub struct FnSite<'a> {
    pub file: usize,
    pub attrs: &'a [Attribute],
    pub sig: &'a Signature,
    pub block: &'a Block,
    /// The whole item, attributes and doc comments included.
    pub range: Range<usize>,
    /// `impl Trait for Type`: the trait's last segment.
    pub impl_trait: Option<String>,
    /// The enclosing impl, for methods.
    pub imp: Option<&'a ItemImpl>,
    /// A `#[tool]` method.
    pub is_tool: bool,
}

impl FnSite<'_> {
    pub fn name(&self) -> String {
        self.sig.ident.to_string()
    }

    pub fn mentions(&self, name: &str) -> bool {
        tokens_mention(&self.block.to_token_stream(), name)
    }

    /// The tool's name on the wire: `#[tool(name = "…")]` or the method's name.
    pub fn tool_name(&self) -> String {
        for attr in self.attrs.iter().filter(|a| a.path().segments.last().is_some_and(|s| s.ident == "tool")) {
            let mut name = None;
            let _ = attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("name") {
                    let lit: syn::LitStr = meta.value()?.parse()?;
                    name = Some(lit.value());
                } else if meta.input.peek(syn::Token![=]) {
                    let _: syn::Expr = meta.value()?.parse()?;
                } else if meta.input.peek(syn::token::Paren) {
                    let _ = meta.parse_nested_meta(|inner| {
                        if inner.input.peek(syn::Token![=]) {
                            let _: syn::Expr = inner.value()?.parse()?;
                        }
                        Ok(())
                    });
                }
                Ok(())
            });
            if let Some(n) = name {
                return n;
            }
        }
        self.name()
    }
}

pub struct StructSite<'a> {
    pub file: usize,
    pub item: &'a ItemStruct,
}

#[derive(Default)]
pub struct Index<'a> {
    pub fns: Vec<FnSite<'a>>,
    pub structs: Vec<StructSite<'a>>,
    /// Names of every type the crate defines (structs, enums, aliases, traits).
    pub type_names: Vec<String>,
}

impl<'a> Index<'a> {
    pub fn build(files: &'a [Option<ParsedFile>], texts: &'a [String]) -> Index<'a> {
        let mut index = Index::default();
        for (i, parsed) in files.iter().enumerate() {
            if let Some(p) = parsed {
                let src = Src { text: &texts[i], base: p.base };
                index.items(i, &src, &p.ast.items);
            }
        }
        index
    }

    fn items(&mut self, file: usize, src: &Src, items: &'a [Item]) {
        for item in items {
            match item {
                Item::Fn(f) => self.fns.push(FnSite {
                    file,
                    attrs: &f.attrs,
                    sig: &f.sig,
                    block: &f.block,
                    range: src.range(f),
                    impl_trait: None,
                    imp: None,
                    is_tool: false,
                }),
                Item::Impl(imp) => {
                    let impl_trait =
                        imp.trait_.as_ref().and_then(|(_, p, _)| p.segments.last()).map(|s| s.ident.to_string());
                    for it in &imp.items {
                        if let syn::ImplItem::Fn(f) = it {
                            self.fns.push(FnSite {
                                file,
                                attrs: &f.attrs,
                                sig: &f.sig,
                                block: &f.block,
                                range: src.range(f),
                                impl_trait: impl_trait.clone(),
                                imp: Some(imp),
                                is_tool: has_attr(&f.attrs, "tool"),
                            });
                        }
                    }
                }
                Item::Struct(s) => {
                    self.type_names.push(s.ident.to_string());
                    self.structs.push(StructSite { file, item: s });
                }
                Item::Enum(e) => self.type_names.push(e.ident.to_string()),
                Item::Type(t) => self.type_names.push(t.ident.to_string()),
                Item::Trait(t) => self.type_names.push(t.ident.to_string()),
                Item::Mod(m) => {
                    if let Some((_, items)) = &m.content {
                        self.items(file, src, items);
                    }
                }
                _ => {}
            }
        }
    }

    /// Structs of this name anywhere in the crate.
    pub fn structs_named(&self, name: &str) -> Vec<&StructSite<'a>> {
        self.structs.iter().filter(|s| s.item.ident == name).collect()
    }
}
