//! Tokenized inputs in padded batches: longest first, so each batch pads to a similar length;
//! every batch keeps the input positions of its rows, so results go back in input order.

/// One batch: the input positions of its rows, and ids, type ids and mask padded to one width.
pub struct Batch {
    pub rows: Vec<usize>,
    pub ids: Vec<Vec<u32>>,
    pub types: Vec<Vec<u32>>,
    pub mask: Vec<Vec<u32>>,
}

/// `tokens` (ids, type ids) in batches of at most `size`, ids padded with `pad`.
pub fn batches(tokens: &[(Vec<u32>, Vec<u32>)], size: usize, pad: u32) -> Vec<Batch> {
    let mut order: Vec<usize> = (0..tokens.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(tokens[i].0.len()));
    order
        .chunks(size.max(1))
        .map(|chunk| {
            let width = chunk.iter().map(|&i| tokens[i].0.len()).max().unwrap_or(0);
            let padded = |v: &[u32], fill: u32| {
                let mut v = v.to_vec();
                v.resize(width, fill);
                v
            };
            Batch {
                rows: chunk.to_vec(),
                ids: chunk.iter().map(|&i| padded(&tokens[i].0, pad)).collect(),
                types: chunk.iter().map(|&i| padded(&tokens[i].1, 0)).collect(),
                mask: chunk.iter().map(|&i| padded(&vec![1; tokens[i].0.len()], 0)).collect(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn longest_first_padded_with_positions_kept() {
        let t = |n: usize| (vec![7; n], vec![0; n]);
        let b = super::batches(&[t(1), t(3), t(2)], 2, 9);
        assert_eq!(b.iter().map(|b| b.rows.clone()).collect::<Vec<_>>(), [vec![1, 2], vec![0]]);
        assert_eq!(b[0].ids, [vec![7, 7, 7], vec![7, 7, 9]]);
        assert_eq!(b[0].mask, [vec![1, 1, 1], vec![1, 1, 0]]);
        assert_eq!(b[1].ids, [vec![7]]);
    }
}
