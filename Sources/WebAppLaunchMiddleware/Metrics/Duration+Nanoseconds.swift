extension Duration {
    /// The duration in whole nanoseconds, saturating at `Int64.max` instead of trapping on
    /// overflow (configured timeouts and recorded intervals come from outside).
    package var saturatingNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        let (total, sumOverflow) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        return sumOverflow ? (whole < 0 ? .min : .max) : total
    }
}
