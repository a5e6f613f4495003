/// A Prometheus text exposition read back as samples, for the metrics tests of every
/// listener that has a metrics endpoint (`serve`, the gate).
public enum PrometheusSamples {
    /// Each sample line's value by its name and labels as written
    /// (`webapp_launch_accepted_total{app="healthmagazin"}`); comments are skipped.
    /// - Parameter exposition: The text `GET /metrics` answered.
    /// - Returns: The values.
    public static func parse(_ exposition: String) -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in exposition.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            samples[String(line[..<space])] = value
        }
        return samples
    }
}
