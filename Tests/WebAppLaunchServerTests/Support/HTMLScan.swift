import Foundation

/// A deliberately small HTML tag scanner for assertions: it finds the real elements of a
/// page (text escaped as `&lt;` never starts one) and their attribute names, honouring
/// quoted attribute values and skipping the raw text of `<script>` and `<style>`.
struct HTMLElement: Sendable, Equatable {
    let name: String
    let attributes: [String]
}

enum HTMLScan {
    static func elements(in html: String) -> [HTMLElement] {
        let characters = Array(html.unicodeScalars)
        var elements: [HTMLElement] = []
        var index = 0
        func isNameCharacter(_ c: Unicode.Scalar) -> Bool {
            c.properties.isAlphabetic || ("0"..."9").contains(c) || c == "-" || c == "_" || c == ":"
        }
        while index < characters.count {
            guard characters[index] == "<" else { index += 1; continue }
            index += 1
            guard index < characters.count else { break }
            if characters[index] == "/" || characters[index] == "!" {
                while index < characters.count && characters[index] != ">" { index += 1 }
                continue
            }
            var name = ""
            while index < characters.count && isNameCharacter(characters[index]) {
                name.unicodeScalars.append(characters[index]); index += 1
            }
            guard !name.isEmpty else { continue }
            var attributes: [String] = []
            while index < characters.count && characters[index] != ">" {
                let c = characters[index]
                if c == " " || c == "\n" || c == "\t" || c == "/" { index += 1; continue }
                var attribute = ""
                while index < characters.count, !" \n\t=>/".unicodeScalars.contains(characters[index]) {
                    attribute.unicodeScalars.append(characters[index]); index += 1
                }
                if !attribute.isEmpty { attributes.append(attribute.lowercased()) }
                if index < characters.count && characters[index] == "=" {
                    index += 1
                    if index < characters.count, characters[index] == "\"" || characters[index] == "'" {
                        let quote = characters[index]
                        index += 1
                        while index < characters.count && characters[index] != quote { index += 1 }
                        index += 1
                    } else {
                        while index < characters.count, !" \n\t>".unicodeScalars.contains(characters[index]) { index += 1 }
                    }
                } else if attribute.isEmpty {
                    index += 1
                }
            }
            elements.append(HTMLElement(name: name.lowercased(), attributes: attributes))
            if name.lowercased() == "script" || name.lowercased() == "style" {
                let closing = Array("</\(name.lowercased())".unicodeScalars)
                while index < characters.count {
                    if characters[index] == "<", index + closing.count <= characters.count,
                       String(String.UnicodeScalarView(characters[index..<(index + closing.count)])).lowercased() == String(String.UnicodeScalarView(closing)) {
                        break
                    }
                    index += 1
                }
            }
        }
        return elements
    }

    /// The text between the first `<tag>` and the next `</tag>`, exactly.
    static func rawText(of tag: String, in html: String) -> String? {
        guard let open = html.range(of: "<\(tag)>"),
              let close = html.range(of: "</\(tag)>", range: open.upperBound..<html.endIndex)
        else { return nil }
        return String(html[open.upperBound..<close.lowerBound])
    }
}
