//! Terms handed to tantivy ready-made, through a tokenizer instead of `PreTokenizedString`: tantivy's document
//! keeps a pre-tokenized value as JSON (every token an object with offsets and position), serialized when the
//! document is made and parsed again when it is indexed — 40% of the follower's time under a stream of creates
//! (`perf record -t <zz-indexer>`). Here the terms `text` makes are framed into one string, `{position} {byte
//! length} {term}` each, which [`Framed`] reads back as the same tokens at the same positions.
use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

/// The name the schema's term fields use for this tokenizer (registered on every index opened).
pub(crate) const NAME: &str = "zz_framed";

/// Terms at their positions as one string for [`Framed`]. The byte length makes any term text safe (spaces, digits,
/// control characters).
pub(crate) fn frame<'a>(terms: impl IntoIterator<Item = (usize, &'a str)>) -> String {
    let mut out = String::new();
    for (position, term) in terms {
        push_number(&mut out, position);
        out.push(' ');
        push_number(&mut out, term.len());
        out.push(' ');
        out.push_str(term);
    }
    out
}

/// `n` in decimal (without `fmt`: two numbers per term, a hundred terms per record, on the follower's path).
fn push_number(out: &mut String, mut n: usize) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend(digits[i..].iter().map(|d| char::from(*d)));
}

/// Reads the terms [`frame`] wrote.
#[derive(Clone, Default)]
pub(crate) struct Framed;

pub(crate) struct Stream<'a> {
    rest: &'a str,
    token: Token,
}

impl Tokenizer for Framed {
    type TokenStream<'a> = Stream<'a>;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> Stream<'a> {
        Stream { rest: text, token: Token::default() }
    }
}

impl TokenStream for Stream<'_> {
    fn advance(&mut self) -> bool {
        let next = (|| {
            let (position, rest) = self.rest.split_once(' ')?;
            let (len, rest) = rest.split_once(' ')?;
            let (position, len) = (position.parse::<usize>().ok()?, len.parse::<usize>().ok()?);
            Some((position, rest.get(..len)?, rest.get(len..)?))
        })();
        let Some((position, term, rest)) = next else {
            self.rest = "";
            return false;
        };
        self.rest = rest;
        self.token.position = position;
        self.token.position_length = 1;
        self.token.offset_from = 0;
        self.token.offset_to = 0;
        self.token.text.clear();
        self.token.text.push_str(term);
        true
    }
    fn token(&self) -> &Token {
        &self.token
    }
    fn token_mut(&mut self) -> &mut Token {
        &mut self.token
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_written_in_decimal() {
        for n in [0usize, 7, 10, 99, 100, 12_345, usize::MAX] {
            let mut s = String::from("x");
            push_number(&mut s, n);
            assert_eq!(s, format!("x{n}"));
        }
    }

    #[test]
    fn framed_terms_come_back_as_written() {
        let terms = [(0, "name\u{1f}张三"), (0, "\u{1f}张三"), (1, "a b"), (7, "12 3"), (9, ""), (12, "\u{1f}x ")];
        let text = frame(terms.iter().map(|(p, t)| (*p, *t)));
        let mut f = Framed;
        let mut s = f.token_stream(&text);
        let mut got = Vec::new();
        while s.advance() {
            got.push((s.token().position, s.token().text.clone()));
        }
        assert_eq!(got, terms.iter().map(|(p, t)| (*p, t.to_string())).collect::<Vec<_>>());
        // A damaged frame ends the stream rather than inventing terms.
        let mut s = f.token_stream("3 99 short");
        assert!(!s.advance());
    }
}
