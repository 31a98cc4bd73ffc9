import Foundation
import Testing
@testable import ListDiffKit
import ListDiffKitTestSupport

/// JSONTestSuite (nst/JSONTestSuite), judged as upstream judges a parser.
@Suite struct JSONConformanceTests {
    static let parsing = Paths.conformance.appendingPathComponent("json-test-suite/test_parsing")
    static let transform = Paths.conformance.appendingPathComponent("json-test-suite/test_transform")

    static func files(_ prefix: String) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: parsing, includingPropertiesForKeys: nil)
            .filter { $0.lastPathComponent.hasPrefix(prefix) && $0.pathExtension == "json" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// Every y case but two: an object that gives a member name twice is valid JSON
    /// (RFC 8259 says names SHOULD be unique), but listdiff refuses it, because the tools
    /// beside it disagree on which member counts (README, "Duplicate member names").
    @Test func acceptsEveryYCase() throws {
        let files = try Self.files("y_")
        #expect(files.count == 95)
        var rejected: [String] = []
        for file in files {
            do { _ = try JSONReader().read(try bytes(file), name: file.lastPathComponent) } catch {
                rejected.append("\(error)")
            }
        }
        #expect(
            rejected == [
                #"y_object_duplicated_key.json:1:10: error: duplicate member name "a" in one object (first at line 1, column 2)"#,
                #"y_object_duplicated_key_and_value.json:1:10: error: duplicate member name "a" in one object (first at line 1, column 2)"#,
            ])
    }

    @Test func rejectsEveryNCaseWithAPosition() throws {
        let files = try Self.files("n_")
        #expect(files.count == 188)
        var accepted: [String] = []
        var unpositioned: [String] = []
        for file in files {
            let input = try bytes(file)
            do throws(ListDiffError) {
                _ = try JSONReader().read(input, name: file.lastPathComponent)
                accepted.append(file.lastPathComponent)
            } catch {
                if error.location == nil || error.file != file.lastPathComponent { unpositioned.append("\(error)") }
            }
        }
        #expect(accepted == [])
        #expect(unpositioned == [])
    }

    @Test func survivesEveryICase() throws {
        let files = try Self.files("i_")
        #expect(files.count == 35)
        for file in files {
            // Accepting and rejecting are both fine; not crashing is the test.
            _ = try? JSONReader().read(try bytes(file), name: file.lastPathComponent)
        }
    }

    @Test func deepNestingIsRefusedNotCrashed() throws {
        let deep = Array(repeating: UInt8(ascii: "["), count: 100_000)
        #expect(throws: ListDiffError.self) { try JSONReader().value(deep) }
        let ok = Array(repeating: UInt8(ascii: "["), count: 500) + Array(repeating: UInt8(ascii: "]"), count: 500)
        #expect(throws: Never.self) { try JSONReader().value(ok) }
    }

    @Test func nfcAndNfdKeysStayDistinct() throws {
        let value = try JSONReader().value(try bytes(Self.transform.appendingPathComponent("object_key_nfc_nfd.json")))
        guard case .object(let object) = value else { Issue.record("not an object"); return }
        #expect(object.members.count == 2)
        #expect(!object.members[0].key.scalarEquals(object.members[1].key))
        #expect(object.members[0].key == object.members[1].key, "Swift's String == folds them; we must not")
        #expect(!object.hasDuplicateKeys)
        // Same keys in the other order are the same object; one key alone is not.
        let other = try JSONReader().value(try bytes(Self.transform.appendingPathComponent("object_key_nfd_nfc.json")))
        #expect(value == other)
        #expect(value != .object(Object([object.members[0], object.members[0]])))
    }

    @Test func bigIntegersStayExact() throws {
        func number(_ file: String) throws -> Number {
            let value = try JSONReader().value(try bytes(Self.transform.appendingPathComponent(file)))
            guard case .array(let items) = value, case .number(let n) = items.first else {
                throw ListDiffError(.syntax, "\(file): not [number]")
            }
            return n
        }
        #expect(try number("number_10000000000000000999.json").text == "10000000000000000999")
        #expect(try number("number_10000000000000000999.json") != Number(text: "10000000000000001000"))
        #expect(try number("number_-9223372036854775809.json") != Number(text: "-9223372036854775808"))
        #expect(try number("number_1.0.json") == Number(text: "1"))
        #expect(try number("number_1.000000000000000005.json") != Number(text: "1"))
        #expect(try number("number_1e6.json") == Number(text: "1000000"))
        #expect(try number("number_1e-999.json") != Number(text: "0"))
    }

    @Test(arguments: [
        ("1", "1.0", true), ("1", "1e0", true), ("10", "1e1", true), ("0.5", "5e-1", true),
        ("-0", "0", true), ("0.0", "0e10", true), ("100", "1E2", true), ("1.50", "1.5", true),
        ("12345678901234567890", "12345678901234567891", false), ("1", "-1", false), ("0.1", "0.01", false),
    ])
    func numbersCompareByExactValue(a: String, b: String, equal: Bool) {
        #expect((Number(text: a) == Number(text: b)) == equal)
        if equal { #expect(Number(text: a).hashValue == Number(text: b).hashValue) }
    }

    @Test func errorsNameLineAndColumn() throws {
        let text = "[\n  {\"id\": 1},\n  {\"id\": 2,}\n]"
        #expect {
            _ = try JSONReader().read(Array(text.utf8), name: "x.json")
        } throws: { error in
            "\(error)" == "x.json:3:12: error: expected a string key in object, found '}'"
        }
        #expect {
            _ = try JSONReader().read(Array("[\"é\", tru]".utf8), name: "y.json")
        } throws: { error in
            "\(error)" == "y.json:1:7: error: invalid literal; expected 'true'"
        }
    }

    @Test func contentEqualityIgnoresMemberOrderButNotTypes() throws {
        #expect(try json(#"{"a":1,"b":[true,null]}"#) == json(#"{"b":[true,null],"a":1.0}"#))
        #expect(try json("[true]") != json("[1]"))
        #expect(try json(#"["1"]"#) != json("[1]"))
        #expect(try json("[1,2]") != json("[2,1]"))
        #expect(try json(#"{"a":1}"#) != json(#"{"a":1,"b":1}"#))
    }

    @Test func writerRoundTripsExactly() throws {
        let text = #"{"b":1.50,"a":[-0,1e400,"\u0000\"\\\n é"],"c":{"":null,"~/":true}}"#
        let value = try json(text)
        let written = JSONWriter.compact(value)
        #expect(try json(written) == value)
        #expect(written.contains("1.50") && written.contains("1e400"))
        #expect(written.hasPrefix(#"{"b""#))
    }
}
