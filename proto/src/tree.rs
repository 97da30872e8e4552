//! Subtrees on the wire and on disk: bincode of a flat pre-order list, so decoding a hostile
//! blob can neither recurse without bound nor build a tree deeper than a game allows.

use hakase_core::trees::tree::{Tree, MAX_DEPTH};
use hakase_core::{GuessId, Pattern};
use serde::{Deserialize, Serialize};

use crate::error::ProtoError;

/// Largest encoded subtree accepted.
pub const MAX_TREE_BYTES: usize = 24 * 1024 * 1024;

/// One tree node in pre-order: the pattern leading to it (0 at the root), its guess and how
/// many children follow.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct FlatNode {
    pattern: u8,
    guess: GuessId,
    children: u16,
}

fn config() -> bincode::config::Configuration<
    bincode::config::LittleEndian,
    bincode::config::Varint,
    bincode::config::Limit<MAX_TREE_BYTES>,
> {
    bincode::config::standard().with_limit::<MAX_TREE_BYTES>()
}

/// Encodes a tree.
pub fn encode(tree: &Tree) -> Vec<u8> {
    let mut flat = Vec::with_capacity(tree.nodes());
    let mut stack: Vec<(u8, &Tree)> = vec![(0, tree)];
    while let Some((pattern, node)) = stack.pop() {
        flat.push(FlatNode {
            pattern,
            guess: node.guess,
            children: node.branches.len() as u16,
        });
        for (p, child) in node.branches.iter().rev() {
            stack.push((p.0, child));
        }
    }
    // Encoding plain integers into a Vec cannot fail.
    bincode::serde::encode_to_vec(&flat, config()).unwrap_or_default()
}

/// Decodes a tree, refusing oversized, truncated or malformed input and trees whose guesses
/// are not below `guesses`.
pub fn decode(bytes: &[u8], guesses: usize) -> Result<Tree, ProtoError> {
    if bytes.len() > MAX_TREE_BYTES {
        return Err(ProtoError::TooLarge {
            field: "tree",
            len: bytes.len(),
            max: MAX_TREE_BYTES,
        });
    }
    let (flat, used): (Vec<FlatNode>, usize) =
        bincode::serde::decode_from_slice(bytes, config())
            .map_err(|e| ProtoError::invalid("tree", e.to_string()))?;
    if used != bytes.len() {
        return Err(ProtoError::invalid("tree", "trailing bytes"));
    }
    let mut nodes = flat.into_iter();
    let root = nodes
        .next()
        .ok_or_else(|| ProtoError::invalid("tree", "empty"))?;
    // Each frame: the node being built, the children it still expects and its pattern.
    let mut stack: Vec<(Tree, u16, u8)> = Vec::new();
    let mut current = start(root, guesses)?;
    loop {
        if current.1 == 0 {
            let (done, _, pattern) = current;
            match stack.pop() {
                None => {
                    if nodes.next().is_some() {
                        return Err(ProtoError::invalid("tree", "nodes after the root's end"));
                    }
                    return Ok(done);
                }
                Some(mut parent) => {
                    if let Some((last, _)) = parent.0.branches.last() {
                        if last.0 >= pattern {
                            return Err(ProtoError::invalid("tree", "branches out of order"));
                        }
                    }
                    parent.0.branches.push((Pattern(pattern), done));
                    parent.1 -= 1;
                    current = parent;
                }
            }
        } else {
            let next = nodes
                .next()
                .ok_or_else(|| ProtoError::invalid("tree", "truncated"))?;
            if stack.len() + 1 >= MAX_DEPTH as usize {
                return Err(ProtoError::invalid("tree", "deeper than any game"));
            }
            stack.push(current);
            current = start(next, guesses)?;
        }
    }
}

fn start(node: FlatNode, guesses: usize) -> Result<(Tree, u16, u8), ProtoError> {
    if node.guess as usize >= guesses {
        return Err(ProtoError::invalid(
            "tree",
            format!("guess id {} out of range", node.guess),
        ));
    }
    if usize::from(node.pattern) >= hakase_core::rules::pattern::PATTERNS {
        return Err(ProtoError::invalid("tree", "pattern out of range"));
    }
    Ok((Tree::leaf(node.guess), node.children, node.pattern))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Tree {
        Tree {
            guess: 3,
            branches: vec![
                (Pattern(0), Tree::leaf(1)),
                (
                    Pattern(5),
                    Tree {
                        guess: 2,
                        branches: vec![(Pattern(7), Tree::leaf(0))],
                    },
                ),
            ],
        }
    }

    #[test]
    fn round_trip() {
        let tree = sample();
        assert_eq!(decode(&encode(&tree), 4), Ok(tree));
    }

    #[test]
    fn refuses_bad_input() {
        let bytes = encode(&sample());
        assert!(decode(&bytes, 3).is_err());
        assert!(decode(&bytes[..bytes.len() - 1], 4).is_err());
        assert!(decode(&[], 4).is_err());
        assert!(decode(&[0xFF; 64], 4).is_err());
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode(&longer, 4).is_err());
    }

    #[test]
    fn refuses_deep_chains() {
        let mut tree = Tree::leaf(0);
        for _ in 0..MAX_DEPTH + 5 {
            tree = Tree {
                guess: 0,
                branches: vec![(Pattern(1), tree)],
            };
        }
        assert!(decode(&encode(&tree), 1).is_err());
    }
}
