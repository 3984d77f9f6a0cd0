/// The OpenAPI 3.0 document served at `/openapi.json` (docs/api.md is the same API in prose).
enum OpenAPIDocument {
    static let json = #"""
        {
          "openapi": "3.0.3",
          "info": {"title": "Suite server", "version": "1.0.0",
            "description": "The Documents API of `suite serve` as JSON over HTTP. Every /v1 route needs `Authorization: Bearer TOKEN`; rules decide which paths a user may read and write."},
          "servers": [{"url": "/"}],
          "security": [{"bearer": []}],
          "paths": {
            "/healthz": {"get": {"summary": "Liveness", "security": [], "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object", "properties": {"status": {"type": "string"}}, "required": ["status"]}}}}}}},
            "/metrics": {"get": {"summary": "Prometheus metrics", "security": [], "responses": {"200": {"description": "text exposition format", "content": {"text/plain": {"schema": {"type": "string"}}}}}}},
            "/openapi.json": {"get": {"summary": "This document", "security": [], "responses": {"200": {"description": "OpenAPI 3.0", "content": {"application/json": {"schema": {"type": "object"}}}}}}},
            "/v1/docs/{path}": {
              "parameters": [{"name": "path", "in": "path", "required": true, "description": "A document path, e.g. users/ana (slashes included)", "schema": {"type": "string"}}],
              "get": {"summary": "Read a document", "responses": {"200": {"$ref": "#/components/responses/Document"}, "400": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"}, "403": {"$ref": "#/components/responses/Error"}, "404": {"$ref": "#/components/responses/Error"}}},
              "put": {"summary": "Set a document", "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Write"}}}}, "responses": {"200": {"$ref": "#/components/responses/Document"}, "400": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"}, "403": {"$ref": "#/components/responses/Error"}, "409": {"$ref": "#/components/responses/Error"}, "413": {"$ref": "#/components/responses/Error"}}},
              "patch": {"summary": "Update fields, with transforms", "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Write"}}}}, "responses": {"200": {"$ref": "#/components/responses/Document"}, "400": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"}, "403": {"$ref": "#/components/responses/Error"}, "404": {"$ref": "#/components/responses/Error"}, "409": {"$ref": "#/components/responses/Error"}, "413": {"$ref": "#/components/responses/Error"}}},
              "delete": {"summary": "Delete a document", "responses": {"200": {"$ref": "#/components/responses/Document"}, "400": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"}, "403": {"$ref": "#/components/responses/Error"}, "409": {"$ref": "#/components/responses/Error"}}}
            },
            "/v1/query": {"post": {"summary": "Run a query", "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Query"}}}}, "responses": {"200": {"description": "the matching documents", "content": {"application/json": {"schema": {"type": "object", "properties": {"documents": {"type": "array", "items": {"$ref": "#/components/schemas/Document"}}}, "required": ["documents"]}}}}, "400": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"}, "403": {"$ref": "#/components/responses/Error"}, "413": {"$ref": "#/components/responses/Error"}}}},
            "/v1/commit": {"post": {"summary": "Commit writes atomically, with preconditions", "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object", "properties": {"writes": {"type": "array", "items": {"$ref": "#/components/schemas/BatchWrite"}}}, "required": ["writes"], "additionalProperties": false}}}}, "responses": {"200": {"description": "the documents as written", "content": {"application/json": {"schema": {"type": "object", "properties": {"results": {"type": "array", "items": {"$ref": "#/components/schemas/Document"}}}, "required": ["results"]}}}}, "400": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"}, "403": {"$ref": "#/components/responses/Error"}, "409": {"$ref": "#/components/responses/Error"}, "413": {"$ref": "#/components/responses/Error"}}}}
          },
          "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "responses": {
              "Document": {"description": "a document", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Document"}}}},
              "Error": {"description": "an error with a message and a hint", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
            },
            "schemas": {
              "Document": {"type": "object", "properties": {"path": {"type": "string"}, "version": {"type": "integer"}, "data": {"type": "object", "nullable": true}, "updateTime": {"type": "string", "nullable": true}}, "required": ["path", "version"]},
              "Error": {"type": "object", "properties": {"error": {"type": "object", "properties": {"code": {"type": "string"}, "message": {"type": "string"}, "hint": {"type": "string", "nullable": true}}, "required": ["code", "message"]}}, "required": ["error"]},
              "Precondition": {"type": "object", "properties": {"version": {"type": "integer"}, "exists": {"type": "boolean"}}},
              "Write": {"type": "object", "properties": {"data": {"type": "object"}, "merge": {"oneOf": [{"type": "boolean"}, {"type": "array", "items": {"type": "string"}}]}, "transforms": {"type": "object", "description": "field: {\"increment\": N} | \"serverTimestamp\" | {\"arrayUnion\": [...]} | {\"arrayRemove\": [...]} | \"delete\""}, "precondition": {"$ref": "#/components/schemas/Precondition"}}},
              "BatchWrite": {"type": "object", "properties": {"op": {"type": "string", "enum": ["set", "update", "delete", "add"]}, "path": {"type": "string"}, "data": {"type": "object"}, "merge": {"oneOf": [{"type": "boolean"}, {"type": "array", "items": {"type": "string"}}]}, "transforms": {"type": "object"}, "precondition": {"$ref": "#/components/schemas/Precondition"}}, "required": ["op", "path"]},
              "Query": {"type": "object", "properties": {"collection": {"type": "string"}, "collectionGroup": {"type": "string"}, "where": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}, "orderBy": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}, "limit": {"type": "integer", "minimum": 1, "maximum": 10000}}, "additionalProperties": false}
            }
          }
        }
        """#
}
