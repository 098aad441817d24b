//! JSON-RPC on top of the spanned tree: what a message is, and which side sent each message of a
//! recorded transcript (so rules can tell a server-initiated `roots/list` from a client request).

use std::collections::HashMap;

use super::tree::JsonNode;

/// What one JSON value is as a JSON-RPC message. The `jsonrpc` member is not required: recorded
/// transcripts and hand-written fixtures often leave it out.
#[derive(Debug, Clone, Copy)]
pub enum MessageKind<'a> {
    Request { method: &'a str, method_node: &'a JsonNode, id: &'a JsonNode },
    Notification { method: &'a str, method_node: &'a JsonNode },
    Response { id: &'a JsonNode, result: Option<&'a JsonNode>, error: Option<&'a JsonNode> },
    Other,
}

impl MessageKind<'_> {
    fn is_message(&self) -> bool {
        !matches!(self, MessageKind::Other)
    }
}

/// Whether `method` is one field of some other record, not a message's: the object has none of
/// JSON-RPC's other members (`jsonrpc`, `id`, `params`, `_meta`) but members of its own (a tool's
/// arguments `{"host": "a", "method": "ping"}`, an option of a probe).
pub fn method_is_a_field(node: &JsonNode) -> bool {
    const ENVELOPE: [&str; 5] = ["jsonrpc", "id", "params", "_meta", "method"];
    let members = node.members();
    !members.iter().any(|m| ENVELOPE[..4].contains(&m.key.as_str()))
        && members.iter().any(|m| !ENVELOPE.contains(&m.key.as_str()))
}

pub fn classify(node: &JsonNode) -> MessageKind<'_> {
    if !node.is_object() {
        return MessageKind::Other;
    }
    let id = node.get("id");
    if let Some(method_node) = node.get("method") {
        // A non-string `method` is not a call of anything; don't fall through to "response".
        return match (method_node.as_str(), id) {
            (Some(method), Some(id)) => MessageKind::Request { method, method_node, id },
            (Some(method), None) => MessageKind::Notification { method, method_node },
            (None, _) => MessageKind::Other,
        };
    }
    let (result, error) = (node.get("result"), node.get("error"));
    match id {
        Some(id) if result.is_some() || error.is_some() => MessageKind::Response { id, result, error },
        _ => MessageKind::Other,
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Sender {
    Client,
    Server,
    Unknown,
}

impl Sender {
    fn opposite(self) -> Sender {
        match self {
            Sender::Client => Sender::Server,
            Sender::Server => Sender::Client,
            Sender::Unknown => Sender::Unknown,
        }
    }
}

#[derive(Debug, Clone)]
pub struct TranscriptMessage<'a> {
    /// The message itself (inside its wrapper, if the transcript wraps messages).
    pub message: &'a JsonNode,
    pub kind: MessageKind<'a>,
    pub sender: Sender,
}

/// Keys of a wrapper object that say which way a message went.
const DIRECTION_KEYS: &[&str] = &["direction", "dir", "from", "sender", "source"];
/// Keys of a wrapper object that hold the message.
const MESSAGE_KEYS: &[&str] = &["message", "msg", "payload", "data"];
/// Keys of a root object that hold the transcript's array.
const TRANSCRIPT_KEYS: &[&str] = &["messages", "transcript"];

/// Methods only a server sends (to its client).
const SERVER_METHODS: &[&str] = &[
    "roots/list",
    "sampling/createMessage",
    "elicitation/create",
    "notifications/message",
    "notifications/resources/updated",
    "notifications/resources/list_changed",
    "notifications/tools/list_changed",
    "notifications/prompts/list_changed",
    "notifications/subscriptions/acknowledged",
    "notifications/elicitation/complete",
];
/// Methods either side may send.
const EITHER_SIDE_METHODS: &[&str] = &["ping", "notifications/progress", "notifications/cancelled"];

/// None when the roots are not a transcript.
pub fn transcript(roots: &[JsonNode]) -> Option<Vec<TranscriptMessage<'_>>> {
    let (elements, lenient) = match roots {
        [] => return None,
        [root] => {
            let array = if root.is_object() { TRANSCRIPT_KEYS.iter().find_map(|k| root.get(k))? } else { root };
            if !matches!(array.kind, super::tree::JsonKind::Array(_)) {
                return None;
            }
            (array.elements(), false)
        }
        // Several roots: a JSONL file, one message per line. A stray non-object line (a log
        // banner, say) doesn't make it something else.
        _ => (roots, true),
    };
    if !lenient && !elements.iter().all(JsonNode::is_object) {
        return None;
    }

    let unwrapped: Vec<(&JsonNode, MessageKind<'_>, Option<Sender>)> = elements.iter().map(unwrap).collect();
    // An array of objects none of which is a message is data (e.g. sampling `messages`).
    if !unwrapped.iter().any(|(_, kind, _)| kind.is_message()) {
        return None;
    }

    // Sender of the latest request per id, so responses can be attributed to the other side.
    let mut requests: HashMap<String, Sender> = HashMap::new();
    let messages = unwrapped
        .into_iter()
        .map(|(message, kind, stated)| {
            let sender = match kind {
                MessageKind::Request { method, id, .. } => {
                    let sender = stated.unwrap_or_else(|| sender_of_method(method));
                    if let Some(key) = id.scalar_key() {
                        requests.insert(key, sender);
                    }
                    sender
                }
                MessageKind::Notification { method, .. } => stated.unwrap_or_else(|| sender_of_method(method)),
                MessageKind::Response { id, .. } => stated.unwrap_or_else(|| {
                    id.scalar_key().and_then(|key| requests.get(&key)).map_or(Sender::Unknown, |s| s.opposite())
                }),
                MessageKind::Other => stated.unwrap_or(Sender::Unknown),
            };
            TranscriptMessage { message, kind, sender }
        })
        .collect();
    Some(messages)
}

/// An element as a message: itself, or the message inside a `{direction, message}` wrapper, with
/// the sender the wrapper states (if it states one we understand).
fn unwrap(element: &JsonNode) -> (&JsonNode, MessageKind<'_>, Option<Sender>) {
    let kind = classify(element);
    if kind.is_message() {
        return (element, kind, None);
    }
    for key in MESSAGE_KEYS {
        if let Some(inner) = element.get(key) {
            let inner_kind = classify(inner);
            if inner_kind.is_message() {
                return (inner, inner_kind, stated_sender(element));
            }
        }
    }
    (element, kind, stated_sender(element))
}

/// The sender a wrapper's direction member states. These transcripts are recorded by a client,
/// so "outgoing"/"sent" mean client to server.
fn stated_sender(wrapper: &JsonNode) -> Option<Sender> {
    const TO_SERVER: &[&str] = &["client->server", "c2s", "to_server", "outgoing", "send", "sent"];
    const TO_CLIENT: &[&str] = &["server->client", "s2c", "to_client", "incoming", "recv", "received"];
    for key in DIRECTION_KEYS {
        let Some(value) = wrapper.get(key).and_then(JsonNode::as_str) else {
            continue;
        };
        let value = value.to_ascii_lowercase();
        if TO_SERVER.iter().any(|p| value.contains(p)) {
            return Some(Sender::Client);
        }
        if TO_CLIENT.iter().any(|p| value.contains(p)) {
            return Some(Sender::Server);
        }
        // A bare side name only makes sense as "who sent it", not as a direction.
        if matches!(*key, "from" | "sender" | "source") {
            match value.as_str() {
                "client" => return Some(Sender::Client),
                "server" => return Some(Sender::Server),
                _ => {}
            }
        }
    }
    None
}

fn sender_of_method(method: &str) -> Sender {
    if SERVER_METHODS.contains(&method) {
        Sender::Server
    } else if EITHER_SIDE_METHODS.contains(&method) {
        Sender::Unknown
    } else {
        Sender::Client
    }
}

/// True for a result object `{ "resultType": "input_required", … }` (also reached through a response's `result`).
pub fn is_input_required_result(result: &JsonNode) -> bool {
    let result = match classify(result) {
        MessageKind::Response { result: Some(inner), .. } => inner,
        _ => result,
    };
    result.get("resultType").and_then(JsonNode::as_str) == Some("input_required")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse::parse_json_file;
    use crate::source::FileKind;

    fn roots(text: &str, kind: FileKind) -> Vec<JsonNode> {
        let parsed = parse_json_file(text, kind);
        assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
        parsed.roots
    }

    fn node(text: &str) -> JsonNode {
        roots(text, FileKind::Json).pop().unwrap()
    }

    fn senders(messages: &[TranscriptMessage<'_>]) -> Vec<Sender> {
        messages.iter().map(|m| m.sender).collect()
    }

    #[test]
    fn classifies_requests_notifications_responses() {
        let text = r#"{"jsonrpc": "2.0", "id": 7, "method": "tools/call"}"#;
        let n = node(text);
        let MessageKind::Request { method, method_node, id } = classify(&n) else { panic!() };
        assert_eq!(method, "tools/call");
        assert_eq!(&text[method_node.range.clone()], "\"tools/call\"");
        assert_eq!(id.scalar_key().as_deref(), Some("n:7"));

        let n = node(r#"{"method": "notifications/initialized"}"#);
        assert!(matches!(classify(&n), MessageKind::Notification { method, .. }
            if method == "notifications/initialized"));

        let n = node(r#"{"id": "a", "result": {}}"#);
        assert!(matches!(classify(&n), MessageKind::Response { result: Some(_), error: None, .. }));
        let n = node(r#"{"id": null, "error": {"code": -32700}}"#);
        assert!(matches!(classify(&n), MessageKind::Response { result: None, error: Some(_), .. }));

        for text in [
            r#"{"id": 1}"#,
            r#"{"method": 5, "id": 1}"#,
            r#"{"result": {}}"#,
            r#"[{"id": 1, "method": "x"}]"#,
            r#""ping""#,
        ] {
            assert!(matches!(classify(&node(text)), MessageKind::Other), "{text}");
        }
    }

    #[test]
    fn jsonl_transcript_infers_senders() {
        let text = concat!(
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}\r\n",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"capabilities\":{}}}\r\n",
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\r\n",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"roots/list\"}\r\n",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"roots\":[]}}\r\n",
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\r\n",
            "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\"}\r\n",
            "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"result\":{}}\r\n",
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\r\n",
            "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{}}\r\n",
        );
        let roots = roots(text, FileKind::Jsonl);
        let t = transcript(&roots).unwrap();
        use Sender::*;
        assert_eq!(
            senders(&t),
            // The second id-1 response answers the server's roots/list (most recent id 1); the
            // string id "1" matches no request.
            [Client, Server, Client, Server, Client, Server, Unknown, Unknown, Unknown, Unknown]
        );
        assert!(std::ptr::eq(t[3].message, &roots[3]));
    }

    #[test]
    fn wrapped_array_uses_stated_directions() {
        let text = r#"[
            {"direction": "outgoing", "message": {"id": 1, "method": "ping"}},
            {"direction": "incoming", "message": {"id": 1, "result": {}}},
            {"dir": "s2c", "payload": {"id": 2, "method": "ping"}},
            {"from": "Client", "msg": {"id": 2, "result": {}}},
            {"source": "server", "data": {"method": "notifications/progress"}},
            {"direction": "client->server", "message": {"method": "notifications/cancelled"}},
            {"sender": "server->client", "message": {"id": 3, "method": "tools/list"}},
            {"direction": "sideways", "message": {"id": 3, "result": {}}}
        ]"#;
        let root = node(text);
        let t = transcript(std::slice::from_ref(&root)).unwrap();
        use Sender::*;
        assert_eq!(senders(&t), [Client, Server, Server, Client, Server, Client, Server, Client]);
        // The message is the inner object, not the wrapper.
        assert!(std::ptr::eq(t[0].message, root.elements()[0].get("message").unwrap()));
        assert!(matches!(t[0].kind, MessageKind::Request { method: "ping", .. }));
    }

    #[test]
    fn transcript_under_messages_key() {
        let root = node(
            r#"{"name": "run 1", "transcript": [
            {"id": 1, "method": "tools/list"}, {"id": 1, "result": {"tools": []}}
        ]}"#,
        );
        let t = transcript(std::slice::from_ref(&root)).unwrap();
        assert_eq!(senders(&t), [Sender::Client, Sender::Server]);
        let root = node(r#"{"messages": [{"id": 1, "method": "sampling/createMessage"}]}"#);
        assert_eq!(senders(&transcript(std::slice::from_ref(&root)).unwrap()), [Sender::Server]);
    }

    #[test]
    fn input_required_results() {
        let response = node(
            r#"{"jsonrpc": "2.0", "id": 4,
            "result": {"resultType": "input_required", "inputRequests": {}}}"#,
        );
        assert!(is_input_required_result(&response));
        assert!(is_input_required_result(response.get("result").unwrap()));
        let done = node(r#"{"id": 4, "result": {"resultType": "complete"}}"#);
        assert!(!is_input_required_result(&done));
        assert!(!is_input_required_result(&node(r#"{"id": 4, "error": {}}"#)));
        assert!(!is_input_required_result(&node("[1]")));
    }

    #[test]
    fn non_transcripts() {
        for text in [
            r#"{"capabilities": {"tools": {"listChanged": true}}}"#,
            "[1, 2, 3]",
            "[]",
            r#"[{"name": "a"}, {"name": "b"}]"#,
            r#"[{"id": 1, "method": "ping"}, 2]"#,
            r#"{"id": 1, "method": "ping"}"#,
            // Sampling parameters: objects under `messages`, but not JSON-RPC.
            r#"{"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]}"#,
            r#"{"messages": "none"}"#,
        ] {
            let root = node(text);
            assert!(transcript(std::slice::from_ref(&root)).is_none(), "{text}");
        }
        assert!(transcript(&[]).is_none());
        let lines = roots("{\"a\": 1}\n{\"b\": 2}\n", FileKind::Jsonl);
        assert!(transcript(&lines).is_none());
    }

    #[test]
    fn jsonl_tolerates_non_message_lines() {
        let lines = roots("\"log start\"\n{\"id\": 1, \"method\": \"tools/list\"}\n", FileKind::Jsonl);
        let t = transcript(&lines).unwrap();
        assert!(matches!(t[0].kind, MessageKind::Other));
        assert_eq!(senders(&t), [Sender::Unknown, Sender::Client]);
    }
}
