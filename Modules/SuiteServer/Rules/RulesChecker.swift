import SuiteCore

/// Checks a parsed rules file before it is used: every name is defined where it is used, every function is called
/// with its number of arguments and none calls itself (Firestore refuses recursion), every method exists.
final class RulesChecker {
    let file: RulesFile
    let fileName: String
    private var allWildcards: Set<String> = []

    init(file: RulesFile, fileName: String) {
        self.file = file
        self.fileName = fileName
    }

    func check() throws {
        func collect(_ match: RulesMatch) {
            for segment in match.pattern {
                switch segment {
                case .single(let name), .recursive(let name): allWildcards.insert(name)
                case .literal: break
                }
            }
            match.children.forEach(collect)
        }
        file.matches.forEach(collect)
        var functions: [String: RulesFunction] = [:]
        for function in file.functions { try declare(function, in: &functions) }
        try checkFunctions(file.functions, visible: functions, wildcards: allWildcards)
        for match in file.matches { try check(match, functions: functions, wildcards: []) }
        try checkRecursion()
    }

    private func declare(_ function: RulesFunction, in table: inout [String: RulesFunction]) throws {
        if RulesEvaluation.builtinArity[function.name] != nil || ["request", "resource"].contains(function.name) {
            throw error("'\(function.name)' is a built-in name", at: function.location, hint: "rename the function")
        }
        table[function.name] = function
    }

    private func check(_ match: RulesMatch, functions: [String: RulesFunction], wildcards: Set<String>) throws {
        var functions = functions
        var wildcards = wildcards
        for segment in match.pattern {
            switch segment {
            case .single(let name), .recursive(let name): wildcards.insert(name)
            case .literal: break
            }
        }
        for function in match.functions { try declare(function, in: &functions) }
        try checkFunctions(match.functions, visible: functions, wildcards: wildcards.union(allWildcards))
        for allow in match.allows {
            if let condition = allow.condition {
                try check(condition, names: wildcards, functions: functions)
            }
        }
        for child in match.children { try check(child, functions: functions, wildcards: wildcards) }
    }

    private func checkFunctions(
        _ declared: [RulesFunction], visible: [String: RulesFunction], wildcards: Set<String>
    ) throws {
        for function in declared {
            var names = wildcards.union(function.parameters)
            guard function.lets.count <= 10 else {
                throw error("a function has at most 10 let bindings", at: function.location)
            }
            for (variable, expression) in function.lets {
                try check(expression, names: names, functions: visible)
                names.insert(variable)
            }
            try check(function.body, names: names, functions: visible)
        }
    }

    private func check(_ expression: RulesExpression, names: Set<String>, functions: [String: RulesFunction]) throws {
        func recurse(_ inner: RulesExpression) throws { try check(inner, names: names, functions: functions) }
        switch expression {
        case .literal: return
        case .identifier(let name, let location):
            guard names.contains(name) || name == "request" || name == "resource" else {
                let known = Array(names) + ["request", "resource"]
                throw error(
                    "'\(name)' is not defined here", at: location,
                    hint: Suggestion.didYouMean(name, among: known.sorted(), what: "names"))
            }
        case .list(let items): try items.forEach(recurse)
        case .map(let entries):
            for (key, value) in entries {
                try recurse(key)
                try recurse(value)
            }
        case .path(let parts, _):
            for case .expression(let inner) in parts { try recurse(inner) }
        case .member(let base, _, _):
            try recurse(base)
        case .index(let base, let index, _):
            try recurse(base)
            try recurse(index)
        case .range(let base, let lower, let upper, _):
            try recurse(base)
            if let lower { try recurse(lower) }
            if let upper { try recurse(upper) }
        case .call(let name, let arguments, let location):
            if let function = functions[name] {
                guard function.parameters.count == arguments.count else {
                    throw error(
                        "\(name)() takes \(function.parameters.count) arguments, not \(arguments.count)",
                        at: location)
                }
            } else if let arity = RulesEvaluation.builtinArity[name] {
                guard arity.contains(arguments.count) else {
                    throw error("\(name)() takes \(arity.lowerBound) arguments, not \(arguments.count)", at: location)
                }
            } else {
                let known = Array(functions.keys) + Array(RulesEvaluation.builtinArity.keys)
                throw error(
                    "there is no function \(name)()", at: location,
                    hint: Suggestion.didYouMean(name, among: known.sorted(), what: "functions"))
            }
            try arguments.forEach(recurse)
        case .method(let base, let name, let arguments, let location):
            guard RulesEvaluation.methodNames.contains(name) else {
                throw error(
                    "there is no method \(name)()", at: location,
                    hint: Suggestion.didYouMean(name, among: RulesEvaluation.methodNames.sorted(), what: "methods"))
            }
            // A pattern written in the file is compiled now, as Firestore's compiler does.
            if ["matches", "replace", "split"].contains(name), case .literal(.string(let pattern))? = arguments.first,
                (try? Regex(pattern)) == nil
            {
                throw error("'\(pattern)' is not a regular expression", at: location)
            }
            try recurse(base)
            try arguments.forEach(recurse)
        case .unary(_, let operand, _): try recurse(operand)
        case .binary(_, let left, let right, _):
            try recurse(left)
            try recurse(right)
        case .isType(let operand, _, _): try recurse(operand)
        case .conditional(let test, let yes, let no, _):
            try recurse(test)
            try recurse(yes)
            try recurse(no)
        }
    }

    /// Refuses a function that calls itself, directly or through others.
    private func checkRecursion() throws {
        var all: [RulesFunction] = file.functions
        func collect(_ match: RulesMatch) {
            all += match.functions
            match.children.forEach(collect)
        }
        file.matches.forEach(collect)
        var calls: [String: Set<String>] = [:]
        for function in all {
            var names: Set<String> = []
            func walk(_ expression: RulesExpression) {
                switch expression {
                case .call(let name, let arguments, _):
                    names.insert(name)
                    arguments.forEach(walk)
                case .list(let items): items.forEach(walk)
                case .map(let entries):
                    entries.forEach {
                        walk($0.0); walk($0.1)
                    }
                case .path(let parts, _): for case .expression(let inner) in parts { walk(inner) }
                case .member(let base, _, _): walk(base)
                case .index(let a, let b, _), .binary(_, let a, let b, _):
                    walk(a)
                    walk(b)
                case .range(let base, let lower, let upper, _):
                    walk(base)
                    lower.map(walk)
                    upper.map(walk)
                case .method(let base, _, let arguments, _):
                    walk(base)
                    arguments.forEach(walk)
                case .unary(_, let operand, _), .isType(let operand, _, _): walk(operand)
                case .conditional(let a, let b, let c, _):
                    walk(a)
                    walk(b)
                    walk(c)
                case .literal, .identifier: break
                }
            }
            function.lets.forEach { walk($0.1) }
            walk(function.body)
            calls[function.name, default: []].formUnion(names)
        }
        for function in all {
            var seen: Set<String> = []
            var stack = Array(calls[function.name] ?? [])
            while let next = stack.popLast() {
                if next == function.name {
                    throw error(
                        "\(function.name)() calls itself; Firestore's rules allow no recursion", at: function.location)
                }
                if seen.insert(next).inserted { stack += calls[next] ?? [] }
            }
        }
    }

    private func error(_ message: String, at location: RulesLocation, hint: String? = nil) -> RulesSyntaxError {
        RulesSyntaxError(fileName: fileName, location: location, message: message, hint: hint)
    }
}
