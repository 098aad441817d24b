//! LSP over stdin/stdout: `Content-Length`-framed JSON-RPC messages. A reader thread parses what
//! the client sends; the server writes its messages itself, one whole frame at a time.
//!
//! `lsp-server`'s own stdio transport stops at the first message it cannot parse; this one reports
//! the broken message and goes on reading, so one bad frame never takes the server down.

use std::io::{self, BufRead, Write};
use std::sync::mpsc::{self, Receiver};

use lsp_server::Message;

/// What the reader thread hands the server.
pub enum Incoming {
    Message(Message),
    /// A frame that was read but is not a JSON-RPC message (or a header that is not LSP's); the
    /// string says why.
    Broken(String),
}

/// Starts reading `input` on its own thread. The channel closes when the input ends, fails, or
/// after the `exit` notification.
pub fn spawn_reader(input: impl BufRead + Send + 'static) -> Receiver<Incoming> {
    let (sender, receiver) = mpsc::channel();
    std::thread::Builder::new()
        .name("lsp-reader".into())
        .spawn(move || read_all(input, |incoming| sender.send(incoming).is_ok()))
        .expect("spawning the LSP reader thread");
    receiver
}

fn read_all(mut input: impl BufRead, mut deliver: impl FnMut(Incoming) -> bool) {
    loop {
        let incoming = match Message::read(&mut input) {
            Ok(Some(message)) => {
                let exit = matches!(&message, Message::Notification(n) if n.method == "exit");
                if !deliver(Incoming::Message(message)) || exit {
                    return;
                }
                continue;
            }
            Ok(None) => return,
            // The frame (or header line) was consumed: skip it and read the next one.
            Err(e) if e.kind() == io::ErrorKind::InvalidData => Incoming::Broken(e.to_string()),
            // The input ended inside a frame, or cannot be read at all.
            Err(_) => return,
        };
        if !deliver(incoming) {
            return;
        }
    }
}

/// Writes one message as a frame and flushes it.
pub fn write_message(out: &mut impl Write, message: &Message) -> io::Result<()> {
    message.write(out)
}

/// Writes a JSON-RPC value that `lsp_server::Message` cannot express (a response with a `null` id,
/// which JSON-RPC asks for when a request's id cannot be read).
pub fn write_raw(out: &mut impl Write, value: &serde_json::Value) -> io::Result<()> {
    let text = value.to_string();
    write!(out, "Content-Length: {}\r\n\r\n{text}", text.len())?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    fn read(input: &str) -> Vec<Result<String, String>> {
        let mut got = Vec::new();
        read_all(io::Cursor::new(input.as_bytes().to_vec()), |incoming| {
            got.push(match incoming {
                Incoming::Message(Message::Request(r)) => Ok(r.method),
                Incoming::Message(Message::Notification(n)) => Ok(n.method),
                Incoming::Message(Message::Response(r)) => Ok(format!("response {}", r.id)),
                Incoming::Broken(why) => Err(why),
            });
            true
        });
        got
    }

    #[test]
    fn a_broken_frame_is_reported_and_reading_goes_on() {
        let input = [
            frame(r#"{"jsonrpc":"2.0","id":1,"method":"a"}"#),
            frame("{not json"),
            frame(r#"{"jsonrpc":"2.0","hello":1}"#),
            frame(r#"{"jsonrpc":"2.0","method":"b"}"#),
        ]
        .concat();
        let got = read(&input);
        assert_eq!(got.len(), 4, "{got:?}");
        assert_eq!(got[0], Ok("a".to_string()));
        assert!(got[1].is_err() && got[2].is_err(), "{got:?}");
        assert_eq!(got[3], Ok("b".to_string()));
    }

    #[test]
    fn reading_stops_after_exit_and_at_a_truncated_frame() {
        let input =
            [frame(r#"{"jsonrpc":"2.0","method":"exit"}"#), frame(r#"{"jsonrpc":"2.0","method":"b"}"#)].concat();
        assert_eq!(read(&input), vec![Ok("exit".to_string())]);
        assert_eq!(read("Content-Length: 50\r\n\r\n{\"jsonrpc\""), Vec::new());
    }
}
