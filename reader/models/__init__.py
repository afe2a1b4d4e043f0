"""Running a language model: the backends (the embedded model in a process of its
own, a GGUF file, an OpenAI-compatible server, a scripted stand-in), the model
files and catalogue, and choosing which one answers.

Composing an answer from a question, evidence and a model is ``reader.answer``.
"""
