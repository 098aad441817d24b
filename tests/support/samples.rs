//! Small inputs several integration tests check, written once.

/// A server tool that asks the client for its roots: one `server-roots-request` finding (an error),
/// at line 7.
pub const SERVER_WITH_ROOTS: &str = r#"use rmcp::{RoleServer, service::RequestContext};

struct Files;

impl Files {
    async fn list(&self, context: RequestContext<RoleServer>) -> usize {
        let roots = context.peer.list_roots().await.unwrap();
        roots.roots.len()
    }
}
"#;
