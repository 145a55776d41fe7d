//! Statistics: deterministic, documented, and the same bits on every target.

pub mod agreement;
pub mod bootstrap;
pub mod chisq;
pub mod cluster;
pub mod cochran;
pub mod confidence;
pub mod correction;
pub mod detectable;
pub mod diagnostic;
pub mod distance;
pub mod fdist;
pub mod interval;
pub mod mcnemar;
pub mod multivariate;
pub mod normal;
pub mod paired;
pub mod pca;
pub mod pcoa;
pub mod permanova;
mod permanova_kernel;
pub mod permanova_query;
pub mod permdisp;
pub mod permutation;
pub mod power;
pub mod proportion;
pub mod student;
pub mod twophase;
