//! One benchmark's result as the report and the records read it.

/// One benchmark: `group/function/param` and its median time per iteration.
#[derive(Debug, Clone)]
pub struct Entry {
    pub group: String,
    pub function: String,
    pub param: Option<String>,
    pub throughput: Throughput,
    pub median_ns: f64,
    /// Criterion's 95 % confidence interval of the median.
    pub ci_low_ns: f64,
    pub ci_high_ns: f64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Throughput {
    Bytes(f64),
    Elements(f64),
    None,
}

impl Entry {
    /// Speed in the table's unit: GB/s, Melem/s, or operations per second.
    pub fn speed(&self) -> f64 {
        match self.throughput {
            Throughput::Bytes(b) => b / self.median_ns,
            Throughput::Elements(e) => e / self.median_ns * 1e3,
            Throughput::None => 1e9 / self.median_ns,
        }
    }
}
